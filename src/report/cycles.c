/* SPDX-License-Identifier: Apache-2.0 */
/* cycles.c: retain cycles and strongly connected components as text and JSON (report layer),
 * prefix rep_cycles_. Without a scope, component sizes with their dominant class; with one,
 * the scope's size, then each cycle signature not in the baseline with its count, length,
 * retained size, singleton mark and one example walked edge by edge. */
#include "report/cycles.h"

#include "report/fmt.h"

#include <string.h>

/* Whether the baseline has c: its signature, reachable or not as c is (a cycle the old heap
 * held only as garbage is new once a root holds it). */
static int sig_seen(const cycles_result *old, const cycles_cycle *c)
{
    for (uint32_t i = 0; i < old->n_cycles; i++)
        if (old->cycles[i].unreachable == c->unreachable &&
            strcmp(old->cycles[i].signature, c->signature) == 0)
            return 1;
    return 0;
}

/* Cycles not in the baseline; *garbage: instances of those that no root reaches. */
static uint32_t count_new(const rep_cycles *v, uint64_t *garbage)
{
    const cycles_result *r = v->r;
    uint32_t n_new = 0;
    *garbage = 0;
    for (uint32_t i = 0; i < r->n_cycles; i++)
        if (!v->old || !sig_seen(v->old, &r->cycles[i])) {
            n_new++;
            if (r->cycles[i].unreachable)
                *garbage += r->cycles[i].count;
        }
    return n_new;
}

/* Why the whole heap is not searched for cycles, in the terms of the dump's runtime. */
static const char *why_unscoped(const graph *g)
{
    switch (rep_fmt_runtime(g)) {
    case REP_RT_JAVA:
        return "JVM heaps hold giant class/loader and collection components, so cycles are "
               "not\nenumerated without a scope: give --class NAME or --from ID.\n";
    case REP_RT_JS:
        /* every function and its prototype hold each other (prototype, constructor), and
         * builtins and contexts join them into components of thousands */
        return "JavaScript heaps hold large components of functions, their prototypes and "
               "contexts, so\ncycles are not enumerated without a scope: give --class NAME or "
               "--from @ID.\n";
    default:
        return "Cycles are not enumerated without a scope (a whole heap holds too many): give "
               "--class NAME\nor --from ID.\n";
    }
}

void rep_cycles_json(jsonw *w, const rep_cycles *v)
{
    const graph *g = v->g;
    const cycles_result *r = v->r;
    char id[REP_FMT_MAX], eb[300];
    uint64_t garbage;
    uint32_t shown = 0, n_new = count_new(v, &garbage);
    jsonw_kv_obj_begin(w, "scope");
    if (v->from != GRAPH_NONE)
        jsonw_kv_str(w, "from", rep_fmt_id(id, g, graph_node_id(g, v->from)));
    if (v->cls)
        jsonw_kv_str(w, "class", v->cls);
    jsonw_kv_uint(w, "start_objects", v->n_starts);
    jsonw_kv_uint(w, "objects", r->n_scope);
    jsonw_obj_end(w);
    jsonw_kv_uint(w, "max_length", v->max_len);
    jsonw_kv_uint(w, "n_sccs", r->n_sccs);
    jsonw_kv_uint(w, "scc_objects", r->scc_nodes);
    jsonw_kv_arr_begin(w, "sccs");
    for (uint32_t i = 0; i < r->n_listed_sccs && i < v->top; i++) {
        const cycles_scc *c = &r->sccs[i];
        jsonw_obj_begin(w);
        jsonw_kv_uint(w, "size", c->size);
        jsonw_kv_str(w, "top_class",
                     c->top_class != GRAPH_NONE ? graph_str(g, g->classes[c->top_class].name)
                                                : "");
        jsonw_kv_uint(w, "top_class_count", c->top_count);
        jsonw_kv_str(w, "example", rep_fmt_id(id, g, graph_node_id(g, c->example)));
        jsonw_obj_end(w);
    }
    jsonw_arr_end(w);
    if (v->scoped) {
        jsonw_kv_uint(w, "cycles_found", r->n_found);
        jsonw_kv_bool(w, "truncated", r->truncated);
        if (v->baseline) {
            jsonw_kv_str(w, "baseline", v->baseline);
            jsonw_kv_bool(w, "baseline_truncated", v->old->truncated);
        }
        jsonw_kv_uint(w, "n_cycles", n_new);
        jsonw_kv_arr_begin(w, "cycles");
        for (uint32_t i = 0; i < r->n_cycles && shown < v->top; i++) {
            const cycles_cycle *c = &r->cycles[i];
            if (v->old && sig_seen(v->old, c))
                continue;
            shown++;
            jsonw_obj_begin(w);
            jsonw_kv_str(w, "signature", c->signature);
            jsonw_kv_uint(w, "length", c->length);
            jsonw_kv_uint(w, "count", c->count);
            jsonw_kv_uint(w, "members", c->n_members);
            jsonw_kv_uint(w, "retained", c->retained);
            jsonw_kv_bool(w, "held_by_singleton", c->singleton);
            jsonw_kv_bool(w, "unreachable", c->unreachable);
            jsonw_kv_bool(w, "includes_start", c->has_start);
            jsonw_kv_arr_begin(w, "example");
            for (uint32_t k = 0; k < c->length; k++) {
                jsonw_obj_begin(w);
                jsonw_kv_str(w, "class", graph_class_name(g, r->nodes[c->first + k]));
                node_ix x = r->nodes[c->first + k];
                jsonw_kv_str(w, "id", rep_fmt_id(id, g, graph_node_id(g, x)));
                jsonw_kv_str(w, "edge",
                             graph_edge_name_text(g, r->edges[c->first + k], eb, sizeof eb));
                jsonw_obj_end(w);
            }
            jsonw_arr_end(w);
            jsonw_obj_end(w);
        }
        jsonw_arr_end(w);
    }
}

void rep_cycles_text(FILE *out, const rep_cycles *v)
{
    const graph *g = v->g;
    const cycles_result *r = v->r;
    char a[REP_FMT_MAX], b[REP_FMT_MAX], id[REP_FMT_MAX], eb[300];
    char tb[1024], te[4 * 300 + 4]; /* names escaped for the terminal (rep_fmt_term) */
    uint64_t garbage;
    uint32_t shown = 0, n_new = count_new(v, &garbage);
    int frees = cycles_gc_frees(g), with = 0, without = 0;
    for (uint32_t i = 0; i < r->n_cycles; i++) {
        with |= r->cycles[i].has_start;
        without |= !r->cycles[i].has_start;
    }
    int mixed = with && without;
    if (!v->scoped) {
        fprintf(out, "Strongly connected components over object edges (no scope): %s, %s objects\n",
                rep_fmt_count(a, r->n_sccs), rep_fmt_count(b, r->scc_nodes));
        fputs(why_unscoped(g), out);
        for (uint32_t i = 0; i < r->n_listed_sccs && i < v->top; i++) {
            const cycles_scc *c = &r->sccs[i];
            fprintf(out, "  #%u %s objects, mostly %s (%s), e.g. %s\n", i + 1,
                    rep_fmt_count(a, c->size),
                    c->top_class != GRAPH_NONE
                        ? rep_fmt_term(tb, sizeof tb, graph_str(g, g->classes[c->top_class].name))
                        : "?",
                    rep_fmt_count(b, c->top_count),
                    rep_fmt_id(id, g, graph_node_id(g, c->example)));
        }
    } else {
        if (v->from != GRAPH_NONE)
            fprintf(out, "Scope: %s objects reachable from %s %s\n",
                    rep_fmt_count(a, r->n_scope),
                    rep_fmt_term(tb, sizeof tb, graph_class_name(g, v->from)),
                    rep_fmt_id(id, g, graph_node_id(g, v->from)));
        else
            fprintf(out, "Scope: %s objects reachable from %s instances of %s\n",
                    rep_fmt_count(a, r->n_scope), rep_fmt_count(b, v->n_starts), v->cls);
        fprintf(out, "Strongly connected components: %s (%s objects)\n",
                rep_fmt_count(a, r->n_sccs), rep_fmt_count(b, r->scc_nodes));
        fprintf(out, "Retain cycles up to length %u: %s distinct%s, %s found%s\n",
                (unsigned)v->max_len, rep_fmt_count(b, n_new),
                v->old ? " not in the baseline" : "", rep_fmt_count(a, r->n_found),
                r->truncated == 1   ? " (stopped at --max-cycles; more may exist)"
                : r->truncated == 2 ? " (stopped at its cap of 50 M steps; more may exist)"
                                    : "");
        if (v->old && (v->old->truncated || r->truncated))
            fprintf(out, "  (an enumeration stopped at its cap: a cycle reads new when the "
                    "baseline's stopped before it)\n");
        if (garbage && frees)
            fprintf(out, "  (%s of them no strong or soft reference holds: garbage the next "
                    "collection frees, listed last)\n", rep_fmt_count(a, garbage));
        for (uint32_t i = 0; i < r->n_cycles && shown < v->top; i++) {
            const cycles_cycle *c = &r->cycles[i];
            if (v->old && sig_seen(v->old, c))
                continue;
            shown++;
            /* a cycle the start object is part of, among those its scope only holds (said
             * only where some are not: a scope of rings is all rings) */
            const char *thru = !c->has_start || !mixed ? ""
                               : v->cls  ? ", through a start instance"
                                         : ", through the start object";
            if (c->unreachable && frees)
                fprintf(out, "  #%u x%s, length %u, unreachable: garbage, no leak%s\n", shown,
                        rep_fmt_count(b, c->count), c->length, thru);
            else
                fprintf(out, "  #%u x%s, length %u, retained %s%s%s\n", shown,
                        rep_fmt_count(b, c->count), c->length, rep_fmt_bytes(a, c->retained),
                        c->unreachable ? ", unreachable (no root reaches it: never freed)"
                        : c->singleton ? ", held by singleton" : "", thru);
            fprintf(out, "     ");
            rep_fmt_name(out, c->signature); /* class and field names from the dump */
            fprintf(out, "\n");
            fprintf(out, "     e.g.");
            for (uint32_t k = 0; k < c->length; k++)
                fprintf(out, " %s %s .%s ->",
                        rep_fmt_term(tb, sizeof tb, graph_class_name(g, r->nodes[c->first + k])),
                        rep_fmt_id(id, g, graph_node_id(g, r->nodes[c->first + k])),
                        rep_fmt_term(te, sizeof te,
                                     graph_edge_name_text(g, r->edges[c->first + k], eb,
                                                          sizeof eb)));
            fprintf(out, " (back)\n");
        }
        if (n_new > shown)
            fprintf(out, "  ... %s more (--top N)\n", rep_fmt_count(a, n_new - shown));
    }
}
