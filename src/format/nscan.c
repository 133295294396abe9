/* SPDX-License-Identifier: Apache-2.0 */
/* nscan.c: reader and symboliser of native leak scan reports (format layer), prefix nscan_.
 * One pass over the lines of the mapped report (docs/native.md): each keyword line is split
 * into fields by checked cursors that never read past the line; numbers that do not parse,
 * missing fields, unknown keywords and a missing "end" line are errors naming the byte
 * offset of the line. Arrays grow by doubling; every count is bounded by the file size
 * because each record takes at least one line. Symbolisation (libdw's Dwfl over the files
 * named by the report's mappings, offline) happens after parsing, only for the traces the
 * report lists, and once per address whatever number of traces share it; the signature of a
 * trace hashes module names and module-relative offsets, so one leak keeps one signature
 * across scans and runs despite ASLR. */
#define _GNU_SOURCE
#include "format/nscan.h"
#include "base/hash.h"
#include "base/hmap.h"

#include <dlfcn.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Version 3 adds the "allocator" line; version 2 names the kind of root holding a block
 * (block STATE 4..9); version 1 files (STATE 3 for every root) still load. The magics have
 * one length. */
#define NSCAN_MAGIC "leakray-native 3\n"
#define NSCAN_MAGIC_V2 "leakray-native 2\n"
#define NSCAN_MAGIC_V1 "leakray-native 1\n"

typedef struct nscan_pool {
    struct nscan_pool *next; /* older strings */
    char s[];                /* one NUL-terminated string */
} nscan_pool;

int nscan_sniff(const uint8_t *p, uint64_t n)
{
    size_t k = sizeof NSCAN_MAGIC - 1;
    return n >= k && (memcmp(p, NSCAN_MAGIC, k) == 0 || memcmp(p, NSCAN_MAGIC_V2, k) == 0 ||
                      memcmp(p, NSCAN_MAGIC_V1, k) == 0);
}

static const char *pool_str(nscan_report *r, const char *s, size_t len)
{
    nscan_pool *p = malloc(sizeof *p + len + 1);
    if (!p)
        return NULL;
    memcpy(p->s, s, len);
    p->s[len] = 0;
    p->next = r->pool;
    r->pool = p;
    return p->s;
}

/* ---- Line cursor ---- */

typedef struct cur {
    const char *p, *end; /* rest of the line (no newline) */
} cur;

static int field(cur *c, const char **s, size_t *len)
{
    while (c->p < c->end && *c->p == ' ')
        c->p++;
    if (c->p >= c->end)
        return 0;
    *s = c->p;
    while (c->p < c->end && *c->p != ' ')
        c->p++;
    *len = (size_t)(c->p - *s);
    return 1;
}

static int num(cur *c, uint64_t *v)
{
    const char *s;
    size_t len;
    if (!field(c, &s, &len))
        return 0;
    uint64_t x = 0;
    if (len > 2 && s[0] == '0' && s[1] == 'x') {
        if (len > 18)
            return 0;
        for (size_t i = 2; i < len; i++) {
            char ch = s[i];
            int d = ch >= '0' && ch <= '9' ? ch - '0' : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10 : -1;
            if (d < 0)
                return 0;
            x = x << 4 | (uint64_t)d;
        }
    } else {
        if (len > 19)
            return 0;
        for (size_t i = 0; i < len; i++) {
            if (s[i] < '0' || s[i] > '9')
                return 0;
            x = x * 10 + (uint64_t)(s[i] - '0');
        }
    }
    *v = x;
    return 1;
}

/* The rest of the line as a string (may be empty). */
static const char *rest(nscan_report *r, cur *c)
{
    while (c->p < c->end && *c->p == ' ')
        c->p++;
    return pool_str(r, c->p, (size_t)(c->end - c->p));
}

static int grow(void **arr, uint64_t n, uint64_t *cap, size_t size)
{
    if (n < *cap)
        return 1;
    uint64_t nc = *cap ? *cap * 2 : 16;
    void *p = err_reallocarray(*arr, nc, size);
    if (!p)
        return 0;
    *arr = p;
    *cap = nc;
    return 1;
}

static int group_cmp(const void *a, const void *b)
{
    const nscan_group *x = a, *y = b;
    if (x->bytes != y->bytes)
        return x->bytes > y->bytes ? -1 : 1;
    if (x->kind != y->kind)
        return x->kind - y->kind;
    return x->trace < y->trace ? -1 : x->trace > y->trace;
}

static int block_cmp(const void *a, const void *b)
{
    const nscan_block *x = a, *y = b;
    return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static int trace_cmp(const void *a, const void *b)
{
    const nscan_trace *x = a, *y = b;
    return x->id < y->id ? -1 : x->id > y->id;
}

lr_status nscan_parse(const mfile *m, const char *name, nscan_report *r, lr_error *err)
{
    memset(r, 0, sizeof *r);
    const char *base = (const char *)m->data, *p = base, *end = base + m->len;
    if (!nscan_sniff(m->data, m->len))
        return LR_CORRUPT(err, name, 0, "not a leakray native scan report");
    uint64_t cap_maps = 0, cap_traces = 0, cap_groups = 0, cap_threads = 0, cap_blocks = 0,
             cap_refs = 0;
    uint64_t n_maps = 0, n_traces = 0, n_groups = 0, n_threads = 0;
    int ended = 0;
    lr_status st = LR_OK;
    uint64_t max_state = memcmp(p, NSCAN_MAGIC_V1, sizeof NSCAN_MAGIC - 1) == 0
                             ? NSCAN_HELD_BY_ROOT
                             : NSCAN_ROOT_ANON;
    int v3 = memcmp(p, NSCAN_MAGIC, sizeof NSCAN_MAGIC - 1) == 0;
    p += sizeof NSCAN_MAGIC - 1;
    while (p < end && !ended) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        uint64_t off = (uint64_t)(p - base);
        if (!nl) {
            st = LR_TRUNC(err, name, off, "last line has no newline");
            goto fail;
        }
        cur c = {p, nl};
        p = nl + 1;
        const char *kw;
        size_t kl;
        if (!field(&c, &kw, &kl))
            continue;
#define KW(s) (kl == sizeof(s) - 1 && memcmp(kw, s, kl) == 0)
#define NEED(x)                                                                        \
    do {                                                                               \
        if (!(x)) {                                                                    \
            st = LR_CORRUPT(err, name, off, "bad '%.*s' line", (int)kl, kw);           \
            goto fail;                                                                 \
        }                                                                              \
    } while (0)
#define NOMEM(x)                                                                       \
    do {                                                                               \
        if (!(x)) {                                                                    \
            st = LR_FAIL(err, LR_ERR_NOMEM, "%s: out of memory", name);                \
            goto fail;                                                                 \
        }                                                                              \
    } while (0)
        uint64_t a, b, v;
        if (KW("pid")) {
            NEED(num(&c, &r->pid));
        } else if (KW("exe")) {
            NOMEM(r->exe = (char *)rest(r, &c));
        } else if (KW("reason")) {
            NOMEM(r->reason = (char *)rest(r, &c));
        } else if (KW("time_ms")) {
            NEED(num(&c, &r->time_ms));
        } else if (KW("capture")) {
            const char *s;
            size_t len;
            NEED(field(&c, &s, &len));
            r->capture_ok = len == 2 && !memcmp(s, "ok", 2);
            NEED(num(&c, &r->threads) && num(&c, &r->threads_failed));
            if (!r->capture_ok)
                NOMEM(r->capture_error = (char *)rest(r, &c));
        } else if (KW("allocator")) {
            const char *s, *t;
            size_t len, tl;
            NEED(v3 && field(&c, &s, &len) && field(&c, &t, &tl));
            NEED((tl == 7 && !memcmp(t, "tracked", 7)) || (tl == 8 && !memcmp(t, "bypassed", 8)));
            r->allocator_tracked = tl == 7;
            NOMEM(r->allocator = (char *)pool_str(r, s, len));
            NOMEM(r->allocator_note = (char *)rest(r, &c));
        } else if (KW("backtrace")) {
            const char *s;
            size_t len;
            NEED(field(&c, &s, &len));
            NOMEM(r->backtrace = (char *)pool_str(r, s, len));
            NEED(num(&c, &r->depth) && num(&c, &r->sample_bytes));
        } else if (KW("heap")) {
            NEED(num(&c, &r->heap_blocks) && num(&c, &r->heap_bytes));
        } else if (KW("map")) {
            const char *perm;
            size_t pl;
            NEED(num(&c, &a) && num(&c, &b) && field(&c, &perm, &pl) && pl == 4 &&
                 num(&c, &v) && a < b);
            NOMEM(grow((void **)&r->maps, n_maps, &cap_maps, sizeof *r->maps));
            nscan_map *mp = &r->maps[n_maps++];
            mp->lo = a;
            mp->hi = b;
            mp->off = v;
            mp->exec = perm[2] == 'x';
            mp->build = NULL;
            mp->stale = 0;
            NOMEM(mp->path = rest(r, &c));
        } else if (KW("build")) {
            /* the build id of the file mapped just above: every mapping of that path */
            const char *s;
            size_t len;
            NEED(field(&c, &s, &len) && len >= 2 && len <= 80);
            const char *id = pool_str(r, s, len), *path = rest(r, &c);
            NOMEM(id && path);
            for (uint64_t k = 0; k < n_maps; k++)
                if (!strcmp(r->maps[k].path, path))
                    r->maps[k].build = id;
        } else if (KW("trace")) {
            NEED(num(&c, &a) && a > 0 && a <= UINT32_MAX);
            NOMEM(grow((void **)&r->traces, n_traces, &cap_traces, sizeof *r->traces));
            nscan_trace *t = &r->traces[n_traces];
            memset(t, 0, sizeof *t);
            t->id = (uint32_t)a;
            uint64_t cap_f = 0;
            while (num(&c, &v)) {
                if (!grow((void **)&t->frames, t->n_frames, &cap_f, sizeof *t->frames)) {
                    free(t->frames);
                    NOMEM(0);
                }
                memset(&t->frames[t->n_frames], 0, sizeof t->frames[0]);
                t->frames[t->n_frames++].ip = v;
            }
            n_traces++;
            NEED(c.p >= c.end && t->n_frames > 0);
        } else if (KW("leak")) {
            const char *s;
            size_t len;
            NEED(field(&c, &s, &len));
            int kind = len == 6 && !memcmp(s, "direct", 6)     ? NSCAN_DIRECT
                       : len == 8 && !memcmp(s, "indirect", 8) ? NSCAN_INDIRECT
                                                               : 0;
            NOMEM(grow((void **)&r->groups, n_groups, &cap_groups, sizeof *r->groups));
            nscan_group *g = &r->groups[n_groups];
            memset(g, 0, sizeof *g);
            NEED(kind && num(&c, &a) && a <= UINT32_MAX && num(&c, &g->count) &&
                 num(&c, &g->bytes) && num(&c, &g->addr) && field(&c, &s, &len));
            g->kind = kind;
            g->trace = (uint32_t)a;
            if (!(len == 1 && s[0] == '-')) {
                NEED(len % 2 == 0 && len / 2 <= NSCAN_CONTENT_MAX);
                for (size_t i = 0; i < len; i += 2) {
                    int hi = s[i] <= '9' ? s[i] - '0' : s[i] - 'a' + 10;
                    int lo = s[i + 1] <= '9' ? s[i + 1] - '0' : s[i + 1] - 'a' + 10;
                    NEED(hi >= 0 && hi < 16 && lo >= 0 && lo < 16);
                    g->content[i / 2] = (uint8_t)(hi << 4 | lo);
                }
                g->n_content = (uint32_t)(len / 2);
            }
            n_groups++;
        } else if (KW("thread")) {
            const char *s;
            size_t len;
            NEED(field(&c, &s, &len));
            int kind = len == 8 && !memcmp(s, "unjoined", 8)  ? NSCAN_UNJOINED
                       : len == 7 && !memcmp(s, "running", 7) ? NSCAN_RUNNING
                                                              : 0;
            NOMEM(grow((void **)&r->threads_leaked, n_threads, &cap_threads,
                       sizeof *r->threads_leaked));
            nscan_thread *t = &r->threads_leaked[n_threads];
            NEED(kind && num(&c, &t->tid) && num(&c, &t->age_ms) && num(&c, &a) &&
                 a <= UINT32_MAX);
            t->kind = kind;
            t->trace = (uint32_t)a;
            n_threads++;
        } else if (KW("block")) {
            NOMEM(grow((void **)&r->blocks, r->n_blocks, &cap_blocks, sizeof *r->blocks));
            nscan_block *bl = &r->blocks[r->n_blocks];
            NEED(num(&c, &bl->addr) && num(&c, &bl->size) && num(&c, &a) &&
                 a <= UINT32_MAX && num(&c, &b) && b <= max_state);
            bl->trace = (uint32_t)a;
            bl->state = (uint32_t)b;
            bl->first_ref = r->n_refs;
            bl->n_refs = 0;
            const char *s;
            size_t len;
            while (field(&c, &s, &len)) {
                const char *colon = memchr(s, ':', len);
                NEED(colon);
                cur f1 = {s, colon}, f2 = {colon + 1, s + len};
                NOMEM(grow((void **)&r->refs, r->n_refs, &cap_refs, sizeof *r->refs));
                nscan_ref *rf = &r->refs[r->n_refs];
                NEED(num(&f1, &rf->offset) && num(&f2, &rf->target) && rf->offset < bl->size);
                r->n_refs++;
                bl->n_refs++;
            }
            r->n_blocks++;
        } else if (KW("scan_us")) {
            NEED(num(&c, &r->scan_us));
        } else if (KW("fork_us")) {
            NEED(num(&c, &r->fork_us));
        } else if (KW("scan_cpu_us")) {
            NEED(num(&c, &r->scan_cpu_us));
        } else if (KW("stop_us")) {
            NEED(num(&c, &r->stop_us));
        } else if (KW("fork_call_us")) {
            NEED(num(&c, &r->fork_call_us));
        } else if (KW("pause_us")) {
            NEED(num(&c, &r->pause_us));
        } else if (KW("end")) {
            ended = 1;
        } else {
            /* The word is the file's: its bytes other than printable ASCII are shown as '?',
             * so a hostile report cannot put terminal escapes into the message. */
            char word[41];
            size_t wl = kl > 40 ? 40 : kl;
            for (size_t i = 0; i < wl; i++)
                word[i] = kw[i] >= 0x20 && kw[i] < 0x7f ? kw[i] : '?';
            word[wl] = 0;
            st = LR_CORRUPT(err, name, off, "unknown line '%s'", word);
            goto fail;
        }
#undef KW
#undef NEED
#undef NOMEM
    }
    r->n_maps = (uint32_t)n_maps;
    r->n_traces = (uint32_t)n_traces;
    r->n_groups = (uint32_t)n_groups;
    r->n_threads_leaked = (uint32_t)n_threads;
    if (!ended) {
        st = LR_TRUNC(err, name, m->len, "report ends before its 'end' line");
        goto fail;
    }
    if (n_maps > UINT32_MAX || n_traces > UINT32_MAX || n_groups > UINT32_MAX) {
        st = LR_CORRUPT(err, name, 0, "too many records");
        goto fail;
    }
    if (r->n_groups)
        qsort(r->groups, r->n_groups, sizeof *r->groups, group_cmp);
    if (r->n_traces)
        qsort(r->traces, r->n_traces, sizeof *r->traces, trace_cmp);
    /* the monitor writes each trace once: a second one would be merged with the first by
     * nscan_trace_find's search, a leak's stack chosen by the sort */
    for (uint32_t i = 1; i < r->n_traces; i++)
        if (r->traces[i].id == r->traces[i - 1].id) {
            st = LR_CORRUPT(err, name, 0, "trace %u is given twice", (unsigned)r->traces[i].id);
            goto fail;
        }
    if (r->n_blocks)
        qsort(r->blocks, r->n_blocks, sizeof *r->blocks, block_cmp);
    return LR_OK;
fail:
    r->n_maps = (uint32_t)n_maps;
    r->n_traces = (uint32_t)n_traces;
    r->n_groups = (uint32_t)n_groups;
    r->n_threads_leaked = (uint32_t)n_threads;
    nscan_free(r);
    return st;
}

const nscan_trace *nscan_trace_find(const nscan_report *r, uint32_t id)
{
    uint32_t lo = 0, hi = r->n_traces;
    while (lo < hi) {
        uint32_t mid = (lo + hi) / 2;
        if (r->traces[mid].id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < r->n_traces && r->traces[lo].id == id ? &r->traces[lo] : NULL;
}

void nscan_totals(const nscan_report *r, int kind, uint64_t *blocks, uint64_t *bytes)
{
    *blocks = *bytes = 0;
    for (uint32_t i = 0; i < r->n_groups; i++)
        if (r->groups[i].kind == kind) {
            *blocks += r->groups[i].count;
            *bytes += r->groups[i].bytes;
        }
}

/* ---- Symbolisation ---- */

/* Load base of path: the lowest mapping of it at file offset 0. */
static uint64_t module_base(const nscan_report *r, const char *path)
{
    uint64_t best = UINT64_MAX;
    for (uint32_t i = 0; i < r->n_maps; i++)
        if (r->maps[i].off == 0 && !strcmp(r->maps[i].path, path) && r->maps[i].lo < best)
            best = r->maps[i].lo;
    return best;
}

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

/* C++ names are shown as the programmer wrote them (app::Cache::fill(int), not
 * _ZN3app5Cache4fillEi), as LeakSanitizer and valgrind show them. The demangler is the C++
 * runtime's own, __cxa_demangle, found at run time in libstdc++: a system that has no C++
 * runtime has no C++ program to report on either, and then the names stay as the symbol
 * table has them. */
typedef char *(*cxa_demangle_fn)(const char *mangled, char *buf, size_t *len, int *status);
static cxa_demangle_fn cxa_demangle;
static pthread_once_t cxa_once = PTHREAD_ONCE_INIT;

static void cxa_load(void)
{
    void *h = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL);
    void *f = h ? dlsym(h, "__cxa_demangle") : NULL;
    memcpy(&cxa_demangle, &f, sizeof f); /* POSIX: a function's address through void * */
}

/* The pooled demangled form of a symbol, or the symbol itself (not a C++ name, no
 * demangler, or a name the demangler refuses); a symbol version (`@@GLIBC_2.34`, which the
 * dynamic symbol table appends) is left out, as it is no part of the function's name. */
static const char *func_name(nscan_report *r, const char *sym)
{
    char plain[1024];
    size_t n = strcspn(sym, "@");
    if (sym[n] && n < sizeof plain) {
        memcpy(plain, sym, n);
        plain[n] = 0;
        sym = plain;
    }
    if (sym[0] != '_' || sym[1] != 'Z')
        return pool_str(r, sym, strlen(sym));
    pthread_once(&cxa_once, cxa_load);
    int status = -1;
    char *d = cxa_demangle ? cxa_demangle(sym, NULL, NULL, &status) : NULL;
    const char *s = pool_str(r, status == 0 && d ? d : sym, strlen(status == 0 && d ? d : sym));
    free(d);
    return s;
}

/* At most this many functions inlined into one another at one address are shown. */
#define NSCAN_MAX_INLINE 32

/* The name of an inlined or out-of-line function's DIE: its linkage name demangled (a C++
 * function with its scope and arguments, as the symbol table names the out-of-line ones),
 * else its plain name; both taken through the abstract origin an inlined copy points at. */
static const char *die_func_name(nscan_report *r, Dwarf_Die *die)
{
    Dwarf_Attribute a;
    const char *s = NULL;
    if (dwarf_attr_integrate(die, DW_AT_linkage_name, &a) ||
        dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &a))
        s = dwarf_formstring(&a);
    if (!s && dwarf_attr_integrate(die, DW_AT_name, &a))
        s = dwarf_formstring(&a);
    return s ? func_name(r, s) : NULL;
}

/* The call site an inlined scope records (DW_AT_call_file, DW_AT_call_line): where its
 * caller called it. Returns 0 when it has none. */
static int call_site(nscan_report *r, Dwarf_Die *scope, Dwarf_Files *files, size_t nfiles,
                     const char **file, int *line)
{
    Dwarf_Attribute a;
    Dwarf_Word fi = 0, ln = 0;
    if (!files || !dwarf_attr(scope, DW_AT_call_file, &a) || dwarf_formudata(&a, &fi) ||
        fi >= nfiles || !dwarf_attr(scope, DW_AT_call_line, &a) || dwarf_formudata(&a, &ln) ||
        ln > INT32_MAX)
        return 0;
    const char *f = dwarf_filesrc(files, fi, NULL, NULL);
    if (!f)
        return 0;
    *file = pool_str(r, f, strlen(f));
    *line = (int)ln;
    return 1;
}

/* Finds, below die, the functions whose code holds pc: the out-of-line function and the
 * functions inlined into it, outermost first, into chain (at most cap). Namespaces and
 * classes have no addresses but can hold function definitions; lexical blocks hold inlined
 * calls. Bounded in depth: the debug information is the binary's, not ours. */
static void pc_chain(Dwarf_Die *die, Dwarf_Addr pc, Dwarf_Die *chain, int *n, int cap,
                     int depth)
{
    Dwarf_Die c;
    if (depth > 64 || dwarf_child(die, &c) != 0)
        return;
    do {
        int tag = dwarf_tag(&c);
        switch (tag) {
        case DW_TAG_subprogram:
        case DW_TAG_inlined_subroutine:
        case DW_TAG_lexical_block:
            if (dwarf_haspc(&c, pc) != 1)
                continue;
            if (tag != DW_TAG_lexical_block && *n < cap)
                chain[(*n)++] = c;
            pc_chain(&c, pc, chain, n, cap, depth + 1);
            return; /* scopes nest: no sibling holds pc too */
        case DW_TAG_namespace:
        case DW_TAG_class_type:
        case DW_TAG_structure_type:
        case DW_TAG_union_type:
            if (*n == 0) { /* a definition inside, before any function was found */
                pc_chain(&c, pc, chain, n, cap, depth + 1);
                if (*n)
                    return;
            }
            break;
        default:
            break;
        }
    } while (dwarf_siblingof(&c, &c) == 0);
}

/* Frame fr's functions inlined at its address, innermost first, as LeakSanitizer and
 * addr2line -i give them: at -O2 the allocation of make_shared, push_back or a constructor
 * is inlined, and the line table names a line of a library header (new_allocator.h:137)
 * while the symbol names the function it was inlined into; each caller's own line is the
 * call site its inlined callee records. Writes up to cap frames into out: the inlined ones
 * (inlined = 1), then fr itself at the line its outermost inlined call is on. Returns the
 * count; 0 when nothing is inlined there (fr stands as it is). */
static uint32_t inline_chain(nscan_report *r, Dwfl_Module *mod, Dwarf_Addr pc,
                             const nscan_frame *fr, nscan_frame *out, uint32_t cap)
{
    Dwarf_Addr bias = 0;
    Dwarf_Die *cu = dwfl_module_addrdie(mod, pc, &bias);
    Dwarf_Die chain[NSCAN_MAX_INLINE + 1];
    int n = 0;
    if (cu)
        pc_chain(cu, pc - bias, chain, &n, NSCAN_MAX_INLINE + 1, 0);
    if (n < 2 || dwarf_tag(&chain[0]) != DW_TAG_subprogram || cap < 2)
        return 0;
    Dwarf_Files *files = NULL;
    size_t nfiles = 0;
    if (dwarf_getsrcfiles(cu, &files, &nfiles) != 0)
        files = NULL;
    const char *file = fr->file;
    int line = fr->line;
    uint32_t k = 0;
    for (int i = n - 1; i >= 1 && k + 1 < cap; i--) {
        nscan_frame f = *fr;
        f.inlined = 1;
        f.func = die_func_name(r, &chain[i]);
        f.func_off = 0;
        f.file = file;
        f.line = file ? line : 0;
        out[k++] = f;
        /* the next function out is shown at the line this one was called from */
        if (!call_site(r, &chain[i], files, nfiles, &file, &line))
            file = NULL;
    }
    out[k] = *fr;
    out[k].file = file;
    out[k].line = file ? line : 0;
    return k + 1;
}

/* Whether module mod's build id is hex id (a module without one cannot be told apart: kept). */
static int same_build(Dwfl_Module *mod, const char *id)
{
    const unsigned char *bits;
    GElf_Addr vaddr;
    int n = dwfl_module_build_id(mod, &bits, &vaddr);
    if (n <= 0)
        return 1;
    static const char hx[] = "0123456789abcdef";
    if (strlen(id) != 2 * (size_t)n)
        return 0;
    for (int k = 0; k < n; k++)
        if (id[2 * k] != hx[bits[k] >> 4] || id[2 * k + 1] != hx[bits[k] & 15])
            return 0;
    return 1;
}

/* Names frame fr (module, offset, function, file:line) and writes the functions inlined at
 * its address into chain (see inline_chain). Returns the chain's length, 0 for none. */
static uint32_t symbolize_frame(nscan_report *r, Dwfl *d, nscan_frame *fr, nscan_frame *chain)
{
    int stale = 0;
    for (uint32_t i = 0; i < r->n_maps; i++)
        if (r->maps[i].exec && fr->ip >= r->maps[i].lo && fr->ip < r->maps[i].hi) {
            uint64_t base = module_base(r, r->maps[i].path);
            fr->module = base_name(r->maps[i].path);
            fr->rel = base != UINT64_MAX ? fr->ip - base : fr->ip;
            stale = r->maps[i].stale;
            break;
        }
    Dwfl_Module *mod = NULL;
    /* A return address points after the call: look up the call itself. */
    Dwarf_Addr pc = fr->ip - 1;
    if (!d || !fr->ip || stale || (mod = dwfl_addrmodule(d, pc)) == NULL)
        return 0;
    GElf_Off off = 0;
    GElf_Sym sym;
    const char *fn = dwfl_module_addrinfo(mod, pc, &off, &sym, NULL, NULL, NULL);
    if (fn) {
        fr->func = func_name(r, fn);
        fr->func_off = off + 1;
    }
    Dwfl_Line *line = dwfl_module_getsrc(mod, pc);
    int lineno = 0;
    const char *file = line ? dwfl_lineinfo(line, NULL, &lineno, NULL, NULL, NULL) : NULL;
    if (file) {
        fr->file = pool_str(r, file, strlen(file));
        fr->line = lineno;
    }
    return inline_chain(r, mod, pc, fr, chain, NSCAN_MAX_INLINE + 1);
}

/* The frames symbolize_frame made, by address: a report's traces share most of their frames
 * (main, the C library's start, the callers above each allocating site), and libdw's
 * lookups of one address cost more than rendering a whole trace (16,384 traces took 10 s).
 * An entry's frame is frames[first], its chain the n_chain frames after it. */
typedef struct sym_entry {
    uint64_t ip;
    uint64_t first;
    uint32_t n_chain;
} sym_entry;

typedef struct sym_cache {
    hmap map;            /* hash of the address -> entry */
    sym_entry *e;
    uint64_t n, cap;
    nscan_frame *frames;
    uint64_t n_frames, cap_frames;
    uint64_t seed;       /* the addresses come from the report: hmap_seed */
} sym_cache;

static uint32_t sym_hash(const sym_cache *c, uint64_t ip)
{
    return (uint32_t)hash_mix64(ip ^ c->seed);
}

/* The entry of address ip, or NULL. */
static const sym_entry *sym_find(const sym_cache *c, uint64_t ip)
{
    hmap_it it;
    for (uint32_t e = hmap_first(&c->map, sym_hash(c, ip), &it); e != HMAP_NONE;
         e = hmap_next(&c->map, &it))
        if (c->e[e].ip == ip)
            return &c->e[e];
    return NULL;
}

/* Remembers fr and its chain; out of memory, nothing is (the address is looked up again). */
static void sym_add(sym_cache *c, const nscan_frame *fr, const nscan_frame *chain,
                    uint32_t n_chain)
{
    if (c->n >= HMAP_MAX_RESERVE || !grow((void **)&c->e, c->n, &c->cap, sizeof *c->e))
        return;
    while (c->n_frames + 1 + n_chain > c->cap_frames)
        if (!grow((void **)&c->frames, c->cap_frames, &c->cap_frames, sizeof *c->frames))
            return;
    if (!hmap_add(&c->map, sym_hash(c, fr->ip), (uint32_t)c->n))
        return;
    c->e[c->n++] = (sym_entry){fr->ip, c->n_frames, n_chain};
    c->frames[c->n_frames++] = *fr;
    memcpy(c->frames + c->n_frames, chain, n_chain * sizeof *chain);
    c->n_frames += n_chain;
}

static void sym_free(sym_cache *c)
{
    hmap_free(&c->map);
    free(c->e);
    free(c->frames);
}

void nscan_symbolize(nscan_report *r)
{
    static const Dwfl_Callbacks cb = {
        .find_elf = dwfl_linux_proc_find_elf,
        .find_debuginfo = dwfl_standard_find_debuginfo,
        .section_address = dwfl_offline_section_address,
    };
    Dwfl *d = dwfl_begin(&cb);
    if (d) {
        dwfl_report_begin(d);
        for (uint32_t i = 0; i < r->n_maps; i++) {
            const nscan_map *m = &r->maps[i];
            if (!m->exec)
                continue;
            int seen = 0;
            for (uint32_t k = 0; k < i && !seen; k++)
                seen = r->maps[k].exec && !strcmp(r->maps[k].path, m->path);
            uint64_t base = module_base(r, m->path);
            /* The scan names the files; only regular ones are opened: libdw's open of a FIFO
             * a hostile scan names would wait for a writer forever. */
            struct stat sb;
            if (seen || base == UINT64_MAX || stat(m->path, &sb) != 0 || !S_ISREG(sb.st_mode))
                continue;
            Dwfl_Module *mod = dwfl_report_elf(d, base_name(m->path), m->path, -1, base, false);
            const char *want = NULL;
            for (uint32_t k = 0; k < r->n_maps && !want; k++)
                if (!strcmp(r->maps[k].path, m->path))
                    want = r->maps[k].build;
            if (mod && want && !same_build(mod, want)) {
                /* rebuilt since the scan: its symbols would name other functions */
                for (uint32_t k = 0; k < r->n_maps; k++)
                    if (!strcmp(r->maps[k].path, m->path))
                        r->maps[k].stale = 1;
                r->n_stale++;
            }
        }
        dwfl_report_end(d, NULL, NULL);
    }
    nscan_frame chain[NSCAN_MAX_INLINE + 1];
    sym_cache cache = {.seed = hmap_seed()};
    for (uint32_t t = 0; t < r->n_traces; t++) {
        nscan_trace *tr = &r->traces[t];
        uint64_t h = HASH_FNV64_INIT;
        nscan_frame *all = NULL; /* the frames with inlined ones, once the first is found */
        uint32_t n_all = 0;
        for (uint32_t f = 0; f < tr->n_frames; f++) {
            nscan_frame *fr = &tr->frames[f];
            uint32_t n_chain;
            const sym_entry *e = sym_find(&cache, fr->ip);
            if (e) {
                *fr = cache.frames[e->first];
                n_chain = e->n_chain;
                memcpy(chain, cache.frames + e->first + 1, n_chain * sizeof *chain);
            } else {
                n_chain = symbolize_frame(r, d, fr, chain);
                sym_add(&cache, fr, chain, n_chain);
            }
            /* the signature: the recorded frames only, whatever debug information says. A
             * frame in no mapping (a library dlclose()d before the scan) has no module to be
             * relative to; its offset in its page is what ASLR, which moves whole pages,
             * leaves of its place, and its callers' frames tell its call sites apart. */
            const char *mn = fr->module ? fr->module : "?";
            for (const char *s = mn; *s; s++)
                h = hash_fnv64_step(h, (uint8_t)*s);
            h = hash_fnv64_word(h, fr->module ? fr->rel : fr->ip & 0xfff);
            if (n_chain && !all) {
                /* the frames so far, then room for this chain and every later frame's */
                all = malloc(((size_t)tr->n_frames + NSCAN_MAX_INLINE * 4u) * sizeof *all);
                if (!all) {
                    n_chain = 0; /* out of memory: the recorded frames stand alone */
                } else {
                    memcpy(all, tr->frames, f * sizeof *all);
                    n_all = f;
                }
            }
            if (!all)
                continue;
            /* past NSCAN_MAX_INLINE * 4 inlined frames in all, the recorded frames only
             * (each addition is checked, so the recorded one always has its place) */
            if ((size_t)n_all + n_chain + (tr->n_frames - f - 1) >
                (size_t)tr->n_frames + NSCAN_MAX_INLINE * 4u)
                n_chain = 0;
            if (n_chain) {
                memcpy(all + n_all, chain, n_chain * sizeof *all);
                n_all += n_chain;
            } else {
                all[n_all++] = *fr;
            }
        }
        if (all) {
            free(tr->frames);
            tr->frames = all;
            tr->n_frames = n_all;
        }
        tr->signature = h;
    }
    sym_free(&cache);
    if (d)
        dwfl_end(d);
}

void nscan_free(nscan_report *r)
{
    for (uint32_t i = 0; i < r->n_traces; i++)
        free(r->traces[i].frames);
    free(r->traces);
    free(r->maps);
    free(r->groups);
    free(r->threads_leaked);
    free(r->blocks);
    free(r->refs);
    while (r->pool) {
        nscan_pool *n = r->pool->next;
        free(r->pool);
        r->pool = n;
    }
    memset(r, 0, sizeof *r);
}
