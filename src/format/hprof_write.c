/* SPDX-License-Identifier: Apache-2.0 */
/* hprof_write.c: streaming HPROF rewriting (format layer), prefix hprof_. Implements
 * hprof_strip (hprof_write.h) as a few sequential walks over the mapped input:
 *   info    STRING, then LOAD_CLASS, then CLASS_DUMP records -> layouts of the boxed classes,
 *           String, Bitmap (names first: a dump may write them after its heap dump);
 *   collect (shrink) String.value ids and Bitmap.mBuffer ids from INSTANCE_DUMPs;
 *   buffers (shrink, only if bitmaps) hash + byte-compare the bitmap buffers into groups;
 *   write   one pass copying unchanged byte runs straight from the input ("pending" range)
 *           and emitting only the changes (zeros, rewritten ids, arrays emptied).
 * Shrink changes heap record lengths, so each HEAP_DUMP(_SEGMENT) is walked twice: once to
 * size it, once to write it; nothing is buffered per record. Every length from the file is
 * checked against the bytes of its enclosing record before use. Spec:
 * docs/formats/hprof-write.md. */
#define _GNU_SOURCE
#include "format/hprof_write.h"
#include "format/hprof_internal.h"

#include "base/hash.h"
#include "base/hmap.h"
#include "base/outfile.h"

#include <stdlib.h>
#include <string.h>

/* ---- constants ---- */

/* Record tags and the big-endian readers: hprof_internal.h. */
#define REC_HEADER 9u             /* u1 tag, u4 time, u4 length */
#define MAX_NAME_IDS 16           /* STRING ids remembered per wanted name */
#define MAX_TRACKED 64            /* classes tracked (same name under several loaders) */
#define MAX_REPS_PER_RUN 64       /* distinct contents compared within one hash bucket */
#define GZIP_LEVEL 1              /* fast level: the output is mostly zeros or text */

/* Wanted class names. 0..7 are the boxed primitives; their `value` type is 4 + index
 * (boolean 4, char 5, float 6, double 7, byte 8, short 9, int 10, long 11). */
enum { T_BOXED_LAST = 7, T_STRING = 8, T_BITMAP = 9, T_BUILD = 10, T_BUILD_LAST = 11,
       N_TARGETS = 12 };
static const char *const TARGET_NAMES[N_TARGETS] = {
    "java.lang.Boolean", "java.lang.Character", "java.lang.Float", "java.lang.Double",
    "java.lang.Byte",    "java.lang.Short",     "java.lang.Integer", "java.lang.Long",
    "java.lang.String",  "android.graphics.Bitmap", "android.os.Build",
    "android.os.Build$VERSION"};

enum { F_VALUE = 0, F_MBUFFER = 1, F_MRECYCLED = 2, F_HASH = 3, N_FIELDS = 4 };
static const char *const FIELD_NAMES[N_FIELDS] = {"value", "mBuffer", "mRecycled", "hash"};

/* ---- id maps over the one hash table (0 is the null id, never a key) ---- */

typedef struct idmap {
    hmap index;     /* hash_mix64(key) -> entry */
    uint64_t *keys; /* entry -> key */
    uint64_t *vals; /* entry -> value */
    uint32_t n, cap;
} idmap;

/* The entry of key k, or HMAP_NONE. */
static uint32_t map_find(const idmap *m, uint64_t k)
{
    hmap_it it;
    for (uint32_t e = hmap_first(&m->index, (uint32_t)hash_mix64(k), &it); e != HMAP_NONE;
         e = hmap_next(&m->index, &it))
        if (m->keys[e] == k)
            return e;
    return HMAP_NONE;
}

static int map_get(const idmap *m, uint64_t k, uint64_t *v)
{
    uint32_t e = k ? map_find(m, k) : HMAP_NONE;
    if (e == HMAP_NONE)
        return 0;
    if (v)
        *v = m->vals[e];
    return 1;
}

/* Inserts k (nonzero) with value v, or overwrites its value. */
static int map_put(idmap *m, uint64_t k, uint64_t v)
{
    uint32_t e = map_find(m, k);
    if (e == HMAP_NONE) {
        if (m->n == m->cap) {
            if (m->cap >= (1u << 30))
                return -1;
            uint32_t nc = m->cap ? m->cap * 2 : 1024;
            uint64_t *nk = err_reallocarray(m->keys, nc, sizeof *nk);
            if (!nk)
                return -1;
            m->keys = nk;
            uint64_t *nv = err_reallocarray(m->vals, nc, sizeof *nv);
            if (!nv)
                return -1;
            m->vals = nv;
            m->cap = nc;
        }
        if (!hmap_add(&m->index, (uint32_t)hash_mix64(k), m->n))
            return -1;
        e = m->n++;
        m->keys[e] = k;
    }
    m->vals[e] = v;
    return 0;
}

static void map_free(idmap *m)
{
    hmap_free(&m->index);
    free(m->keys);
    free(m->vals);
    memset(m, 0, sizeof *m);
}

/* ---- state of one rewrite ---- */

typedef struct tracked {
    uint64_t id;     /* class object id */
    int target;      /* index into TARGET_NAMES */
    int laid_out;    /* CLASS_DUMP seen */
    int32_t off[N_FIELDS]; /* offset of the wanted field in instance bytes, -1 if absent */
    uint8_t type[N_FIELDS]; /* its HPROF basic type */
} tracked;

typedef struct bufent {
    uint64_t id;  /* array id */
    uint64_t off; /* offset of the elements in the input */
    uint64_t len; /* element bytes */
    uint64_t h;   /* content hash */
} bufent;

/* P_NAMES and P_LOADS read the STRING and then the LOAD_CLASS records alone, wherever they
 * stand (a dump may write them after its heap dump records, or between them: the reader
 * takes it), so that P_INFO knows every name before the first CLASS_DUMP */
enum phase { P_INFO, P_COLLECT, P_BUFFERS, P_SIZE, P_WRITE, P_NAMES, P_LOADS };

typedef struct strip {
    const uint8_t *d;       /* input bytes */
    uint64_t n;             /* input length */
    const char *name;       /* input name for messages */
    unsigned ids;           /* identifier size, 4 or 8 */
    int mode;               /* enum hprof_strip_mode */
    lr_error *err;

    uint64_t class_sid[N_TARGETS][MAX_NAME_IDS]; /* STRING ids naming each target class */
    uint8_t n_class_sid[N_TARGETS];
    uint64_t field_sid[N_FIELDS][MAX_NAME_IDS];  /* STRING ids naming each wanted field */
    uint8_t n_field_sid[N_FIELDS];
    tracked cls[MAX_TRACKED];                    /* classes of interest */
    int n_cls;
    uint64_t cls_min, cls_max;                   /* id range of cls[] for a cheap reject */

    idmap keep;      /* String value array ids kept (shrink: all; sanitize: the build's) when
                      * the bit set below is too big */
    uint64_t *kbits; /* bit per possible primitive-array id, set = a kept String value */
    uint64_t a_min, a_max, a_or; /* id range and OR of primitive-array ids (info pass) */
    unsigned a_shift;            /* ids are multiples of 1 << a_shift */
    uint64_t a_nbits;            /* bits in kbits */
    idmap bmp;       /* shrink: bitmap buffer id -> kept copy id (itself if kept), 0 = drop */
    bufent *bufs;    /* shrink: bitmap buffers found in the buffers pass */
    idmap build;     /* sanitize: String ids android.os.Build's statics hold (kept) */
    uint64_t n_bufs, cap_bufs;

    outfile *out;    /* write: the output (base/outfile.h) */
    uint64_t pend;   /* write: start of the input range not yet copied */
    uint64_t dropped; /* size: bytes a heap record loses */
    hprof_strip_stats st;
} strip;

static void wrid(const strip *s, uint8_t *p, uint64_t v)
{
    for (unsigned i = 0; i < s->ids; i++)
        p[i] = (uint8_t)(v >> (8 * (s->ids - 1 - i)));
}

/* A name as written by HotSpot ("java/lang/Integer") or ART ("java.lang.Integer"). */
static int name_eq(const uint8_t *p, uint64_t n, const char *want)
{
    size_t wl = strlen(want);
    if (n != wl)
        return 0;
    for (size_t i = 0; i < wl; i++)
        if (p[i] != (uint8_t)want[i] && !(p[i] == '/' && want[i] == '.'))
            return 0;
    return 1;
}

static int sid_in(const uint64_t *ids, int n, uint64_t id)
{
    for (int i = 0; i < n; i++)
        if (ids[i] == id)
            return 1;
    return 0;
}

static tracked *find_tracked(strip *s, uint64_t id)
{
    if (id < s->cls_min || id > s->cls_max)
        return NULL;
    for (int i = 0; i < s->n_cls; i++)
        if (s->cls[i].id == id)
            return &s->cls[i];
    return NULL;
}

/* ---- writing helpers (P_WRITE) ---- */

/* Copies the pending input range up to `upto`. */
static void copy_to(strip *s, uint64_t upto)
{
    if (upto > s->pend)
        outfile_write(s->out, s->d + s->pend, upto - s->pend);
    s->pend = upto;
}

/* ---- CLASS_DUMP (info pass): layouts of the tracked classes ---- */

static lr_status class_layout(strip *s, tracked *t, uint64_t o, uint64_t end)
{
    const unsigned I = s->ids;
    uint64_t p = o + 1 + I + 4 + 6ull * I + 4; /* id, stack, super..reserved2, inst size */
    if (p + 2 > end)
        goto bad;
    unsigned ncp = be16(s->d + p);
    p += 2;
    for (unsigned i = 0; i < ncp; i++) {
        if (p + 3 > end)
            goto bad;
        unsigned sz = type_size(s->d[p + 2], s->ids);
        if (!sz || p + 3 + sz > end)
            goto bad;
        p += 3 + sz;
    }
    if (p + 2 > end)
        goto bad;
    unsigned nst = be16(s->d + p);
    p += 2;
    for (unsigned i = 0; i < nst; i++) {
        if (p + I + 1 > end)
            goto bad;
        unsigned sz = type_size(s->d[p + I], s->ids);
        if (!sz || p + I + 1 + sz > end)
            goto bad;
        /* The build's strings (Build.MANUFACTURER, .ID, VERSION.RELEASE) describe the device,
         * not its user, and the library-leak rules match on them: sanitize keeps them, so a
         * sanitized dump's Samsung leak stays that library leak, under its signature. */
        if (t->target >= T_BUILD && s->d[p + I] == 2) {
            uint64_t v = rd_id(s->d + p + I + 1, s->ids);
            if (v && map_put(&s->build, v, 1) != 0)
                return LR_FAIL(s->err, LR_ERR_NOMEM, "%s: out of memory", s->name);
        }
        p += I + 1 + sz;
    }
    if (p + 2 > end)
        goto bad;
    unsigned nf = be16(s->d + p);
    p += 2;
    uint32_t off = 0;
    for (int f = 0; f < N_FIELDS; f++)
        t->off[f] = -1;
    /* Instance bytes list the class's own fields first (then the super's), so an own
     * field's offset is the sum of the own fields before it. */
    for (unsigned i = 0; i < nf; i++) {
        if (p + I + 1 > end)
            goto bad;
        uint64_t nm = rd_id(s->d + p, s->ids);
        uint8_t ty = s->d[p + I];
        unsigned sz = type_size(ty, s->ids);
        if (!sz)
            goto bad;
        for (int f = 0; f < N_FIELDS; f++)
            if (t->off[f] < 0 && sid_in(s->field_sid[f], s->n_field_sid[f], nm)) {
                t->off[f] = (int32_t)off;
                t->type[f] = ty;
            }
        off += sz;
        p += I + 1;
    }
    t->laid_out = 1;
    /* Keep only the fields whose type is what the class is known to declare. */
    if (t->target <= T_BOXED_LAST) {
        if (t->off[F_VALUE] >= 0 && t->type[F_VALUE] != 4 + t->target)
            t->off[F_VALUE] = -1;
    } else if (t->target == T_STRING) {
        if (t->off[F_VALUE] >= 0 && t->type[F_VALUE] != 2)
            t->off[F_VALUE] = -1;
        if (t->off[F_HASH] >= 0 && t->type[F_HASH] != 10)
            t->off[F_HASH] = -1;
    } else if (t->target == T_BITMAP) {
        if (t->off[F_MBUFFER] >= 0 && t->type[F_MBUFFER] != 2)
            t->off[F_MBUFFER] = -1;
        if (t->off[F_MRECYCLED] >= 0 && t->type[F_MRECYCLED] != 4)
            t->off[F_MRECYCLED] = -1;
    }
    return LR_OK;
bad:
    return LR_CORRUPT(s->err, s->name, o, "CLASS_DUMP runs past its heap record");
}

/* Length of the CLASS_DUMP at o (tag byte included). */
static lr_status class_len(strip *s, uint64_t o, uint64_t end, uint64_t *len)
{
    const unsigned I = s->ids;
    uint64_t p = o + 1 + I + 4 + 6ull * I + 4;
    for (int part = 0; part < 3; part++) {
        if (p + 2 > end)
            goto bad;
        unsigned cnt = be16(s->d + p);
        p += 2;
        for (unsigned i = 0; i < cnt; i++) {
            unsigned head = part == 0 ? 3 : I + 1; /* cp: u2 index + type; statics/fields */
            if (p + head > end)
                goto bad;
            unsigned sz = type_size(s->d[p + head - 1], s->ids);
            if (!sz)
                return LR_CORRUPT(s->err, s->name, p + head - 1, "CLASS_DUMP: bad type %u",
                                  s->d[p + head - 1]);
            p += head + (part == 2 ? 0 : sz);
            if (p > end)
                goto bad;
        }
    }
    *len = p - o;
    return LR_OK;
bad:
    return LR_CORRUPT(s->err, s->name, o, "CLASS_DUMP runs past its heap record");
}

/* ---- the String-value set: a bit per possible array id, or a hash set ---- */

/* Object ids are aligned addresses, so (id - min) >> shift indexes a dense bit set: one
 * memory access per lookup instead of a hash probe, the difference between ~200 and
 * 500+ MB/s for shrink. Sparse ids (bit set above KEEP_BITS_MAX_FRACTION of the input)
 * fall back to the hash set. */
#define KEEP_BITS_MAX_FRACTION 4 /* bit set may use up to input length / 4 bytes */

static lr_status keep_init(strip *s)
{
    if (s->a_max < s->a_min)
        return LR_OK; /* no primitive arrays */
    unsigned sh = 0;
    while (sh < 6 && !((s->a_or >> sh) & 1))
        sh++;
    s->a_shift = sh;
    uint64_t nbits = ((s->a_max - s->a_min) >> sh) + 1;
    if (nbits / 8 > s->n / KEEP_BITS_MAX_FRACTION + (1u << 20))
        return LR_OK;
    s->kbits = err_calloc((size_t)(nbits + 63) / 64, 8);
    if (!s->kbits)
        return LR_FAIL(s->err, LR_ERR_NOMEM, "%s: out of memory", s->name);
    s->a_nbits = nbits;
    return LR_OK;
}

static int keep_add(strip *s, uint64_t id)
{
    if (s->kbits) {
        if (id < s->a_min || id > s->a_max)
            return 0; /* not a primitive array of this file */
        uint64_t b = (id - s->a_min) >> s->a_shift;
        s->kbits[b >> 6] |= 1ull << (b & 63);
        return 0;
    }
    return map_put(&s->keep, id, 1);
}

static inline int keep_has(const strip *s, uint64_t id)
{
    if (s->kbits) {
        if (id < s->a_min || id > s->a_max || ((id - s->a_min) & ((1ull << s->a_shift) - 1)))
            return 0;
        uint64_t b = (id - s->a_min) >> s->a_shift;
        return (s->kbits[b >> 6] >> (b & 63)) & 1;
    }
    return map_get(&s->keep, id, NULL);
}

/* ---- one heap record's sub-records ---- */

/* Walks the sub-records of the heap record body [o, end) for phase ph. */
static lr_status heap_walk(strip *s, uint64_t o, uint64_t end, enum phase ph)
{
    const unsigned I = s->ids;
    const uint8_t *d = s->d;
    while (o < end) {
        uint8_t tag = d[o];
        uint64_t len = 0;
        switch (tag) {
        case 0xff: case 0x05: case 0x07: case 0x89: case 0x8a: case 0x8b: case 0x8c:
        case 0x8d: case 0x90:
            len = 1 + I;
            break;
        case 0x01:
            len = 1 + 2ull * I;
            break;
        case 0x02: case 0x03: case 0x08: case 0x8e:
            len = 1 + I + 8;
            break;
        case 0x04: case 0x06:
            len = 1 + I + 4;
            break;
        case 0xfe:
            len = 1 + 4 + I;
            break;
        case SUB_CLASS_DUMP:
            LR_TRY(class_len(s, o, end, &len));
            if (ph == P_INFO && o + 1 + I <= end) {
                tracked *t = find_tracked(s, rd_id(d + o + 1, s->ids));
                if (t && !t->laid_out)
                    LR_TRY(class_layout(s, t, o, end));
            }
            break;
        case SUB_INSTANCE_DUMP: {
            uint64_t h = 1 + I + 4 + I + 4;
            if (o + h > end)
                goto past;
            uint64_t n = be32(d + o + 1 + I + 4 + I);
            len = h + n;
            if (len > end - o)
                goto past;
            if (ph == P_INFO || ph == P_BUFFERS || (ph == P_SIZE))
                break;
            tracked *t = find_tracked(s, rd_id(d + o + 1 + I + 4, s->ids));
            if (!t)
                break;
            uint64_t data = o + h;
            if (t->target <= T_BOXED_LAST) {
                int32_t fo = t->off[F_VALUE];
                if (ph == P_WRITE && s->mode == HPROF_STRIP_SANITIZE && fo >= 0) {
                    unsigned sz = type_size(t->type[F_VALUE], s->ids);
                    if ((uint64_t)fo + sz <= n) {
                        copy_to(s, data + (uint64_t)fo);
                        outfile_zero(s->out, sz);
                        s->pend = data + (uint64_t)fo + sz;
                        s->st.boxed_zeroed++;
                    }
                }
            } else if (t->target == T_STRING && ph == P_WRITE &&
                       s->mode == HPROF_STRIP_SANITIZE &&
                       !map_get(&s->build, rd_id(d + o + 1, s->ids), NULL)) {
                /* the cached hash is a function of the text sanitize zeroes: a short
                 * secret (a PIN, a password) was found again by trying candidates */
                int32_t fo = t->off[F_HASH];
                if (fo >= 0 && (uint64_t)fo + 4 <= n) {
                    copy_to(s, data + (uint64_t)fo);
                    outfile_zero(s->out, 4);
                    s->pend = data + (uint64_t)fo + 4;
                    s->st.hashes_zeroed++;
                }
            } else if (t->target == T_STRING && ph == P_COLLECT &&
                       (s->mode == HPROF_STRIP_SHRINK ||
                        map_get(&s->build, rd_id(d + o + 1, s->ids), NULL))) {
                int32_t fo = t->off[F_VALUE];
                if (fo >= 0 && (uint64_t)fo + I <= n) {
                    uint64_t v = rd_id(d + data + (uint64_t)fo, s->ids);
                    if (v && keep_add(s, v) != 0)
                        return LR_FAIL(s->err, LR_ERR_NOMEM, "%s: out of memory", s->name);
                }
            } else if (t->target == T_BITMAP) {
                int32_t fb = t->off[F_MBUFFER], fr = t->off[F_MRECYCLED];
                if (fb < 0 || (uint64_t)fb + I > n)
                    break;
                uint64_t buf = rd_id(d + data + (uint64_t)fb, s->ids);
                int recycled = fr >= 0 && (uint64_t)fr < n && d[data + (uint64_t)fr] != 0;
                if (ph == P_COLLECT && buf && !recycled) {
                    s->st.bitmaps++;
                    if (!map_get(&s->bmp, buf, NULL) && map_put(&s->bmp, buf, 0) != 0)
                        return LR_FAIL(s->err, LR_ERR_NOMEM, "%s: out of memory", s->name);
                } else if (ph == P_WRITE && s->mode == HPROF_STRIP_SHRINK && buf) {
                    uint64_t rep;
                    if (map_get(&s->bmp, buf, &rep) && rep != 0 && rep != buf) {
                        uint8_t idb[8];
                        wrid(s, idb, rep);
                        copy_to(s, data + (uint64_t)fb);
                        outfile_write(s->out, idb, I);
                        s->pend = data + (uint64_t)fb + I;
                        s->st.bitmaps_redirected++;
                    }
                }
            }
            break;
        }
        case SUB_OBJ_ARRAY_DUMP: {
            uint64_t h = 1 + I + 4 + 4 + I;
            if (o + h > end)
                goto past;
            len = h + (uint64_t)be32(d + o + 1 + I + 4) * I;
            break;
        }
        case SUB_PRIM_ARRAY_DUMP: {
            uint64_t h = 1 + I + 4 + 4 + 1;
            if (o + h > end)
                goto past;
            uint8_t ty = d[o + h - 1];
            unsigned es = type_size(ty, s->ids);
            if (!es || ty == 2)
                return LR_CORRUPT(s->err, s->name, o + h - 1,
                                  "PRIMITIVE_ARRAY_DUMP: bad element type %u", ty);
            uint64_t bytes = (uint64_t)be32(d + o + 1 + I + 4) * es;
            len = h + bytes;
            if (len > end - o)
                goto past;
            uint64_t id = rd_id(d + o + 1, s->ids);
            if (ph == P_INFO) {
                if (id < s->a_min)
                    s->a_min = id;
                if (id > s->a_max)
                    s->a_max = id;
                s->a_or |= id;
            } else if (ph == P_BUFFERS) {
                if (map_get(&s->bmp, id, NULL)) {
                    if (s->n_bufs == s->cap_bufs) {
                        uint64_t nc = s->cap_bufs ? s->cap_bufs * 2 : 256;
                        bufent *nb = err_reallocarray(s->bufs, nc, sizeof *nb);
                        if (!nb)
                            return LR_FAIL(s->err, LR_ERR_NOMEM, "%s: out of memory", s->name);
                        s->bufs = nb;
                        s->cap_bufs = nc;
                    }
                    s->bufs[s->n_bufs++] =
                        (bufent){id, o + h, bytes, hash_bytes64(d + o + h, bytes)};
                }
            } else if (ph == P_SIZE || (ph == P_WRITE && s->mode == HPROF_STRIP_SHRINK)) {
                uint64_t rep = 0;
                int is_str = keep_has(s, id);
                int keep = is_str || (s->bmp.n && map_get(&s->bmp, id, &rep) && rep == id);
                /* a dropped array keeps its record, with no element: a reference to it
                 * that dangled made Shark and LeakCanary fail on the whole dump */
                if (ph == P_SIZE) {
                    if (!keep)
                        s->dropped += bytes;
                } else {
                    s->st.arrays++;
                    if (keep) {
                        s->st.arrays_kept++;
                        if (is_str)
                            s->st.string_arrays++;
                    } else {
                        s->st.arrays_dropped++;
                        static const uint8_t none[4] = {0, 0, 0, 0};
                        copy_to(s, o + 1 + I + 4);
                        outfile_write(s->out, none, 4); /* the element count */
                        outfile_write(s->out, d + o + h - 1, 1); /* the element type */
                        s->pend = o + len;
                    }
                }
            } else if (ph == P_WRITE) {
                s->st.arrays++;
                if (bytes && !(s->build.n && keep_has(s, id))) {
                    copy_to(s, o + h);
                    outfile_zero(s->out, bytes);
                    s->pend = o + h + bytes;
                    s->st.arrays_zeroed++;
                }
            }
            break;
        }
        case SUB_PRIM_ARRAY_NODATA:
            len = 1 + I + 4 + 4 + 1;
            break;
        default:
            return LR_CORRUPT(s->err, s->name, o, "unknown heap dump sub-record tag 0x%02x",
                              tag);
        }
        if (len > end - o)
            goto past;
        o += len;
    }
    return LR_OK;
past:
    return LR_CORRUPT(s->err, s->name, o, "heap dump sub-record 0x%02x runs past its record",
                      d[o]);
}

/* ---- top-level records ---- */

static lr_status header_len(strip *s, uint64_t *hl)
{
    uint64_t lim = s->n < 64 ? s->n : 64;
    uint64_t z = 0;
    while (z < lim && s->d[z] != 0)
        z++;
    if (z == lim || z < 12 || memcmp(s->d, "JAVA PROFILE", 12) != 0)
        return LR_CORRUPT(s->err, s->name, 0, "not an HPROF file (no JAVA PROFILE header)");
    if (z + 1 + 12 > s->n)
        return LR_TRUNC(s->err, s->name, z + 1, "HPROF header cut short");
    uint32_t ids = be32(s->d + z + 1);
    if (ids != 4 && ids != 8)
        return LR_CORRUPT(s->err, s->name, z + 1, "identifier size %u (expected 4 or 8)", ids);
    s->ids = ids;
    *hl = z + 1 + 12;
    return LR_OK;
}

static void note_string(strip *s, uint64_t o, uint32_t len)
{
    if (len < s->ids)
        return;
    uint64_t sid = rd_id(s->d + o, s->ids);
    const uint8_t *p = s->d + o + s->ids;
    uint64_t n = len - s->ids;
    for (int t = 0; t < N_TARGETS; t++)
        if (s->n_class_sid[t] < MAX_NAME_IDS && name_eq(p, n, TARGET_NAMES[t]))
            s->class_sid[t][s->n_class_sid[t]++] = sid;
    for (int f = 0; f < N_FIELDS; f++)
        if (s->n_field_sid[f] < MAX_NAME_IDS && name_eq(p, n, FIELD_NAMES[f]))
            s->field_sid[f][s->n_field_sid[f]++] = sid;
}

static void note_class(strip *s, uint64_t o, uint32_t len)
{
    if (len < 4 + s->ids + 4 + s->ids || s->n_cls == MAX_TRACKED)
        return;
    uint64_t cid = rd_id(s->d + o + 4, s->ids);
    uint64_t nm = rd_id(s->d + o + 4 + s->ids + 4, s->ids);
    for (int t = 0; t < N_TARGETS; t++)
        if (sid_in(s->class_sid[t], s->n_class_sid[t], nm)) {
            tracked *c = &s->cls[s->n_cls++];
            memset(c, 0, sizeof *c);
            c->id = cid;
            c->target = t;
            for (int f = 0; f < N_FIELDS; f++)
                c->off[f] = -1;
            if (s->n_cls == 1 || cid < s->cls_min)
                s->cls_min = cid;
            if (s->n_cls == 1 || cid > s->cls_max)
                s->cls_max = cid;
            return;
        }
}

/* One pass over all records for phase ph. */
static lr_status pass(strip *s, uint64_t start, enum phase ph)
{
    uint64_t o = start;
    while (o < s->n) {
        if (s->n - o < REC_HEADER)
            return LR_TRUNC(s->err, s->name, o, "record header cut short");
        uint8_t tag = s->d[o];
        uint32_t len = be32(s->d + o + 5);
        uint64_t body = o + REC_HEADER;
        if (len > s->n - body)
            return LR_TRUNC(s->err, s->name, o, "record 0x%02x length %u past end of file",
                            tag, len);
        uint64_t end = body + len;
        if ((tag == TAG_HEAP_DUMP || tag == TAG_HEAP_DUMP_SEGMENT) && ph != P_NAMES &&
            ph != P_LOADS) {
            if (ph == P_WRITE && s->mode == HPROF_STRIP_SHRINK) {
                s->dropped = 0;
                LR_TRY(heap_walk(s, body, end, P_SIZE));
                uint8_t hdr[REC_HEADER];
                memcpy(hdr, s->d + o, 5);
                uint64_t nl = len - s->dropped;
                if (nl == 0 && len > 0) {
                    /* every record of the segment dropped: the segment goes too (VisualVM
                     * refuses a heap dump record of length 0) */
                    copy_to(s, o);
                    s->pend = end;
                    o = end;
                    continue;
                }
                hdr[5] = (uint8_t)(nl >> 24);
                hdr[6] = (uint8_t)(nl >> 16);
                hdr[7] = (uint8_t)(nl >> 8);
                hdr[8] = (uint8_t)nl;
                copy_to(s, o);
                outfile_write(s->out, hdr, REC_HEADER);
                s->pend = body;
            }
            LR_TRY(heap_walk(s, body, end, ph));
        } else if (ph == P_NAMES && tag == TAG_STRING) {
            note_string(s, body, len);
        } else if (ph == P_LOADS && tag == TAG_LOAD_CLASS) {
            note_class(s, body, len);
        }
        o = end;
        if (s->out && outfile_failed(s->out))
            break; /* reported by outfile_commit */
    }
    return LR_OK;
}

/* ---- bitmap buffer groups (shrink) ---- */

static int bufent_cmp(const void *a, const void *b)
{
    const bufent *x = a, *y = b;
    if (x->len != y->len)
        return x->len < y->len ? -1 : 1;
    if (x->h != y->h)
        return x->h < y->h ? -1 : 1;
    return x->off < y->off ? -1 : x->off > y->off;
}

/* Groups identical buffers; the first copy in file order of each group of two or more is
 * kept (maps to itself) and the others map to it. Unique buffers stay mapped to 0 (drop).
 * Empty ones are no copies of each other: a shrunk dump shrunk again pointed 149 unrelated
 * bitmaps at one emptied buffer. */
static lr_status group_buffers(strip *s)
{
    if (s->n_bufs == 0)
        return LR_OK;
    qsort(s->bufs, s->n_bufs, sizeof *s->bufs, bufent_cmp);
    uint64_t i = 0;
    while (i < s->n_bufs) {
        uint64_t j = i + 1;
        while (j < s->n_bufs && s->bufs[j].len == s->bufs[i].len && s->bufs[j].h == s->bufs[i].h)
            j++;
        if (s->bufs[i].len == 0) { /* emptied by an earlier shrink: no pixels, no copies */
            i = j;
            continue;
        }
        /* Within one (length, hash) run, cluster by exact bytes; reps in file order. */
        uint64_t reps[MAX_REPS_PER_RUN];
        uint32_t cnt[MAX_REPS_PER_RUN];
        int nr = 0;
        for (uint64_t k = i; k < j; k++) {
            const bufent *b = &s->bufs[k];
            int r = 0;
            for (; r < nr; r++) {
                const bufent *rb = &s->bufs[reps[r]];
                if (memcmp(s->d + rb->off, s->d + b->off, b->len) == 0)
                    break;
            }
            if (r == nr) {
                if (nr == MAX_REPS_PER_RUN)
                    continue; /* hash flood: leave the rest unique (dropped) */
                reps[nr] = k;
                cnt[nr++] = 0;
            }
            cnt[r]++;
            if (cnt[r] == 2) {
                s->st.bitmap_groups++;
                if (map_put(&s->bmp, s->bufs[reps[r]].id, s->bufs[reps[r]].id) != 0)
                    goto nomem;
            }
            if (cnt[r] >= 2 && b->id != s->bufs[reps[r]].id &&
                map_put(&s->bmp, b->id, s->bufs[reps[r]].id) != 0)
                goto nomem;
        }
        i = j;
    }
    return LR_OK;
nomem:
    return LR_FAIL(s->err, LR_ERR_NOMEM, "%s: out of memory", s->name);
}

/* ---- driver ---- */

static lr_status run(strip *s, const char *out_path)
{
    uint64_t start = 0;
    LR_TRY(header_len(s, &start));
    s->a_min = UINT64_MAX;
    LR_TRY(pass(s, start, P_NAMES));
    LR_TRY(pass(s, start, P_LOADS));
    LR_TRY(pass(s, start, P_INFO));
    if (s->mode == HPROF_STRIP_SANITIZE && s->build.n) { /* the build strings' arrays */
        LR_TRY(keep_init(s));
        LR_TRY(pass(s, start, P_COLLECT));
    }
    if (s->mode == HPROF_STRIP_SHRINK) {
        LR_TRY(keep_init(s));
        LR_TRY(pass(s, start, P_COLLECT));
        if (s->bmp.n) {
            LR_TRY(pass(s, start, P_BUFFERS));
            LR_TRY(group_buffers(s));
        }
    }

    /* The output exists only from here on: the passes above may still reject the input. */
    LR_TRY(outfile_open(out_path, &s->out, s->err));
    outfile_gzip_level(s->out, GZIP_LEVEL);
    s->pend = 0;
    copy_to(s, start);
    lr_status rc = pass(s, start, P_WRITE);
    if (rc == LR_OK)
        copy_to(s, s->n);
    s->st.out_bytes = outfile_bytes(s->out);
    if (rc == LR_OK)
        rc = outfile_commit(s->out, s->err);
    else
        outfile_abort(s->out);
    s->out = NULL;
    return rc;
}

lr_status hprof_strip(const mfile *in, const char *name, const char *out_path,
                      enum hprof_strip_mode mode, hprof_strip_stats *st, lr_error *err)
{
    strip *s = err_calloc(1, sizeof *s);
    if (!s)
        return LR_FAIL(err, LR_ERR_NOMEM, "%s: out of memory", name);
    s->d = in->data;
    s->n = in->len;
    s->name = name;
    s->mode = mode;
    s->err = err;
    lr_status rc = run(s, out_path);
    s->st.in_bytes = s->n;
    if (st)
        *st = s->st;
    map_free(&s->keep);
    free(s->kbits);
    map_free(&s->bmp);
    map_free(&s->build);
    free(s->bufs);
    free(s);
    return rc;
}
