/* SPDX-License-Identifier: Apache-2.0 */
/* trace_status.c: statuses, suspects and signatures of one trace (analysis layer), prefix
 * trace_. Shark's status propagation over a trace's inspector verdicts (section 8.1:
 * everything above the last NO is NO, everything between the first YES after it and the
 * leaking object is YES), the suspect references between them (section 9), and the SHA-1
 * over className + generic reference name of the suspects (section 10); plus how a reference
 * and a root kind are displayed. Each works on one trace_elem array in one pass. Debug builds
 * check the path tree's walk (trace.c) against these on every trace kept whole. */
#include "analysis/trace_internal.h"

/* SHA1_Init & co. are deprecated in OpenSSL 3 but kept; see trace_sha1_hex. */
#define OPENSSL_SUPPRESS_DEPRECATED
#include <openssl/sha.h>
#include <stdlib.h>

void trace_sha1_hex(const char *s, size_t len, char *out)
{
    unsigned char md[SHA_DIGEST_LENGTH];
    /* The one-shot SHA1() of OpenSSL 3 loads the default provider and registers every
     * cipher first (~1.2 ms of CPU, more than a store ingest's own work); the low-level
     * functions hash the same bytes directly. */
    SHA_CTX x;
    SHA1_Init(&x);
    SHA1_Update(&x, s, len);
    SHA1_Final(md, &x);
    static const char hex[] = "0123456789abcdef";
    for (int i = 0; i < SHA_DIGEST_LENGTH; i++) {
        out[2 * i] = hex[md[i] >> 4];
        out[2 * i + 1] = hex[md[i] & 15];
    }
    out[40] = 0;
}

const char *trace_root_description(unsigned kind)
{
    /* The synthetic root is no HPROF root kind, and Shark has no name for it. A V8 trace
     * names the synthetic nodes it starts below instead (trace.root_name); this is for Dart's
     * root object, which holds the isolate. */
    return kind == GRAPH_ROOT_SYNTHETIC ? TRACE_ROOT_SNAPSHOT : graph_root_kind_title(kind);
}

const char *trace_root_text(const graph *g, const trace *t)
{
    if (t->root_name)
        return t->root_name;
    unsigned kind = t->root < g->n_roots ? g->roots[t->root].kind : GRAPH_ROOT_UNKNOWN;
    /* in the runtime's words where its reader gave them (Ruby's root categories) */
    return kind == GRAPH_ROOT_SYNTHETIC ? trace_root_description(kind)
                                        : graph_root_title(g, kind);
}

void trace_ref_display(const trace_elem *el, char *buf, size_t cap)
{
    switch (el->ref_type) {
    case TRACE_REF_ARRAY: snprintf(buf, cap, "[%s]", el->ref_name ? el->ref_name : ""); break;
    case TRACE_REF_LOCAL: snprintf(buf, cap, "<Java Local>"); break;
    default: snprintf(buf, cap, "%s", el->ref_name ? el->ref_name : ""); break;
    }
}

void trace_ref_generic(const trace_elem *el, char *buf, size_t cap)
{
    switch (el->ref_type) {
    case TRACE_REF_ARRAY: snprintf(buf, cap, "[x]"); break;
    case TRACE_REF_LOCAL: snprintf(buf, cap, "<Java Local>"); break;
    default: snprintf(buf, cap, "%s", el->ref_name ? el->ref_name : ""); break;
    }
}

void trace_shark_bytes(const char *s, void (*put)(void *ctx, const void *p, size_t n),
                       void *ctx)
{
    static const char TWO_FFFD[] = "\xef\xbf\xbd\xef\xbf\xbd";
    const unsigned char *p = (const unsigned char *)s, *run = p;
    for (; *p; p++) {
        if (*p < 0xF0 || *p > 0xF4 || (p[1] & 0xC0) != 0x80 || (p[2] & 0xC0) != 0x80 ||
            (p[3] & 0xC0) != 0x80)
            continue;
        if (p > run)
            put(ctx, run, (size_t)(p - run));
        put(ctx, TWO_FFFD, 6);
        p += 3;
        run = p + 1;
    }
    if (p > run)
        put(ctx, run, (size_t)(p - run));
}

typedef struct fpbuf {
    char *s;
    size_t len, cap;
} fpbuf;

static void fpbuf_put(void *ctx, const void *p, size_t n)
{
    fpbuf *b = ctx;
    if (!b->s)
        return;
    if (b->len + n > b->cap) {
        size_t nc = b->cap;
        while (nc < b->len + n)
            nc *= 2;
        char *t = realloc(b->s, nc);
        if (!t) {
            free(b->s);
            b->s = NULL;
            return;
        }
        b->s = t;
        b->cap = nc;
    }
    memcpy(b->s + b->len, p, n);
    b->len += n;
}

/* Whether el[a] and el[b] are the same link: one class, left by the same generic reference. */
static int same_link(const trace_elem *el, uint32_t a, uint32_t b)
{
    char ga[512], gb[512];
    if (strcmp(el[a].class_name ? el[a].class_name : "", el[b].class_name ? el[b].class_name : ""))
        return 0;
    trace_ref_generic(&el[a], ga, sizeof ga);
    trace_ref_generic(&el[b], gb, sizeof gb);
    return !strcmp(ga, gb);
}

void trace_root_generic(const char *root_name, char *buf, size_t cap)
{
    size_t o = 0;
    for (const char *p = root_name ? root_name : ""; *p && o + 1 < cap; p++)
        if (*p < '0' || *p > '9')
            buf[o++] = *p;
    if (cap)
        buf[o] = 0;
}

void trace_fingerprint(const trace_elem *el, uint32_t n, int fold_runs, const char *root_name,
                       char *out)
{
    size_t cap = 1024, len = 0;
    char *s = err_malloc(cap);
    char gen[512], pgen[512];
    for (uint32_t i = 0; s && i + 1 < n; i++) {
        if (!el[i].suspect)
            continue;
        trace_ref_generic(&el[i], gen, sizeof gen);
        const char *cn = el[i].class_name ? el[i].class_name : "";
        if (fold_runs && i > 0 && el[i - 1].suspect &&
            !strcmp(cn, el[i + 1].class_name ? el[i + 1].class_name : "")) {
            trace_ref_generic(&el[i - 1], pgen, sizeof pgen);
            if (!strcmp(gen, pgen))
                continue;
        }
        /* a chain of two kinds of link alternating, past its first pair (trace.c fp_step) */
        if (fold_runs && i >= 3 && el[i - 1].suspect && el[i - 2].suspect && el[i - 3].suspect &&
            same_link(el, i, i - 2) && same_link(el, i - 1, i - 3))
            continue;
        if (fold_runs && el[i].as_slot)
            snprintf(gen, sizeof gen, "[x]");
        /* HPROF names as Shark reads them (trace_shark_bytes), V8's as they are */
        fpbuf b = {s, len, cap};
        if (fold_runs) {
            fpbuf_put(&b, cn, strlen(cn));
            fpbuf_put(&b, gen, strlen(gen));
        } else {
            trace_shark_bytes(cn, fpbuf_put, &b);
            trace_shark_bytes(gen, fpbuf_put, &b);
        }
        s = b.s;
        len = b.len;
        cap = b.cap;
    }
    if (s && fold_runs && len == 0 && n > 0) { /* nothing suspect: the object and its root */
        const char *cn = el[n - 1].class_name ? el[n - 1].class_name : "";
        char rn[512];
        trace_root_generic(root_name, rn, sizeof rn);
        fpbuf b = {s, len, cap};
        fpbuf_put(&b, cn, strlen(cn));
        fpbuf_put(&b, rn, strlen(rn));
        s = b.s;
        len = b.len;
    }
    trace_sha1_hex(s ? s : "", s ? len : 0, out);
    free(s);
}

/* ---------------------------------------------------------------- statuses (8.1, 9) */

/* Simple name used in propagated reasons. */
static const char *simple_of(const trace_elem *e)
{
    return rules_simple_name(e->class_name ? e->class_name : "");
}

char *trace_raw_status(const char *lk, const char *nl, int last, uint8_t *st_out)
{
    uint8_t st = TRACE_UNKNOWN;
    char *reason = NULL;
    if (*nl) {
        st = TRACE_NO;
        reason = sdup(nl);
    }
    if (*lk) {
        if (st == TRACE_NO) {
            char *r2;
            if (last) {
                st = TRACE_YES;
                r2 = joinf(lk, ". Conflicts with ", reason ? reason : "");
            } else {
                r2 = joinf(reason ? reason : "", ". Conflicts with ", lk);
            }
            free(reason);
            reason = r2;
        } else {
            st = TRACE_YES;
            reason = sdup(lk);
        }
    }
    if (last) {
        if (st == TRACE_UNKNOWN) {
            free(reason);
            reason = sdup("This is the leaking object");
        } else if (st == TRACE_NO) {
            char *r2 = joinf("This is the leaking object. Conflicts with ", "",
                             reason ? reason : "");
            free(reason);
            reason = r2;
        }
        st = TRACE_YES;
    }
    if (!reason)
        reason = sdup("");
    *st_out = st;
    return reason;
}

lr_status trace_statuses(trace_elem *el, uint32_t n, char *const *leaking,
                         char *const *not_leaking, lr_error *err)
{
    if (n == 0)
        return LR_OK;
    uint32_t last = n - 1;
    int32_t last_no = -1;
    uint32_t first_yes = last;
    for (uint32_t i = 0; i < n; i++) {
        const char *lk = leaking[i] ? leaking[i] : "", *nl = not_leaking[i] ? not_leaking[i] : "";
        uint8_t st;
        char *reason = trace_raw_status(lk, nl, i == last, &st);
        if (!reason)
            return LR_FAIL(err, LR_ERR_NOMEM, "out of memory building leak traces");
        free(el[i].reason);
        el[i].reason = reason;
        el[i].status = st;
        if (st == TRACE_NO) {
            last_no = (int32_t)i;
            first_yes = last;
        } else if (st == TRACE_YES && first_yes == last) {
            first_yes = i;
        }
    }
    /* everything above the last NO is NO */
    for (int32_t i = 0; i < last_no; i++) {
        int32_t nx = i + 1;
        while (nx < last_no && el[nx].status != TRACE_NO)
            nx++;
        char head[600];
        snprintf(head, sizeof head, "%s\xe2\x86\x93 is not leaking", simple_of(&el[nx]));
        char *r;
        if (el[i].status == TRACE_UNKNOWN)
            r = sdup(head);
        else if (el[i].status == TRACE_NO)
            r = joinf(head, " and ", el[i].reason);
        else
            r = joinf(head, ". Conflicts with ", el[i].reason);
        if (!r)
            return LR_FAIL(err, LR_ERR_NOMEM, "out of memory building leak traces");
        free(el[i].reason);
        el[i].reason = r;
        el[i].status = TRACE_NO;
    }
    /* everything between the first YES and the leaking object is YES */
    if (first_yes + 1 < last) {
        for (uint32_t i = last - 1; i > first_yes; i--) {
            uint32_t pv = i - 1;
            while (pv > first_yes && el[pv].status != TRACE_YES)
                pv--;
            char head[600];
            snprintf(head, sizeof head, "%s\xe2\x86\x91 is leaking", simple_of(&el[pv]));
            char *r = el[i].status == TRACE_UNKNOWN ? sdup(head)
                                                    : joinf(head, " and ", el[i].reason);
            if (!r)
                return LR_FAIL(err, LR_ERR_NOMEM, "out of memory building leak traces");
            free(el[i].reason);
            el[i].reason = r;
            el[i].status = TRACE_YES;
        }
    }
    for (uint32_t i = 0; i + 1 < n; i++)
        el[i].suspect = (uint8_t)(el[i].status == TRACE_UNKNOWN ||
                                  (el[i].status == TRACE_NO &&
                                   (i + 2 == n || el[i + 1].status != TRACE_NO)));
    el[last].suspect = 0;
    return LR_OK;
}
