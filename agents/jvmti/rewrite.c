/* SPDX-License-Identifier: Apache-2.0 */
/* rewrite.c: inserts the watch hook before the returns of chosen methods of a class file
 * (agents layer), prefix rw_. Two passes per method: the first decodes the instructions and
 * lists the returns, the second emits the code with the hook before each return; every old
 * code offset o becomes M(o) = o + INSERT * (returns before o), so a branch to a return
 * lands on its hook. Class-file layout: JVMS chapter 4 (4.4 constant pool, 4.7.3 Code, 4.7.4
 * StackMapTable); opcode lengths: JVMS chapter 6. All reads are bounds-checked: the bytes
 * come from the JVM, but a malformed class must never crash the process it runs in. */
#include "rewrite.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Bytes inserted per return: multiples of 4 keep switch alignment. The call hook is
 * `aload_0; bipush RULE; invokestatic; nop; nop` (`sipush RULE` and one nop above 127), the
 * stamp hook `aload_0; sipush SLOT;
 * invokestatic STAMP(I)I; putfield FIELD; nop; nop`. */
#define RW_INSERT 8
#define RW_INSERT_STAMP 12
#define RW_STAMP_ACC 0x1082 /* private transient synthetic: not serialized, no serialVersionUID
                             * change (its computation skips private transient fields) */

typedef struct buf {
    unsigned char *p;
    size_t n, cap;
    int err;
} buf;

static void put(buf *b, const void *s, size_t n)
{
    if (b->err)
        return;
    if (b->n + n > b->cap) {
        size_t c = b->cap ? b->cap : 4096;
        while (c < b->n + n)
            c *= 2;
        unsigned char *q = realloc(b->p, c);
        if (!q) {
            b->err = 1;
            return;
        }
        b->p = q;
        b->cap = c;
    }
    memcpy(b->p + b->n, s, n);
    b->n += n;
}
static void put1(buf *b, unsigned v) { unsigned char c = (unsigned char)v; put(b, &c, 1); }
static void put2(buf *b, unsigned v) { put1(b, v >> 8); put1(b, v & 0xff); }
static void put4(buf *b, uint32_t v) { put2(b, v >> 16); put2(b, v & 0xffff); }

static unsigned u2(const unsigned char *p) { return (unsigned)p[0] << 8 | p[1]; }
static uint32_t u4(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

typedef struct cls {
    const unsigned char *in;
    size_t n;
    uint32_t *cp_off; /* offset of each constant-pool entry, 0 for unused slots */
    unsigned cp_count;
} cls;

/* Whether constant-pool entry i is the Utf8 s. */
static int utf8_is(const cls *c, unsigned i, const char *s)
{
    if (i == 0 || i >= c->cp_count || !c->cp_off[i])
        return 0;
    const unsigned char *e = c->in + c->cp_off[i];
    if (e[0] != 1)
        return 0;
    size_t l = u2(e + 1);
    return l == strlen(s) && memcmp(e + 3, s, l) == 0;
}

/* Length of the instruction at pc (JVMS 6.5), or 0 if it cannot be decoded. */
static size_t insn_len(const unsigned char *code, size_t n, size_t pc)
{
    unsigned op = code[pc];
    if (op <= 0x0f || (op >= 0x1a && op <= 0x35) || (op >= 0x3b && op <= 0x83) ||
        (op >= 0x85 && op <= 0x98) || (op >= 0xac && op <= 0xb1) || op == 0xbe ||
        op == 0xbf || op == 0xc2 || op == 0xc3)
        return 1;
    if (op == 0x10 || op == 0x12 || (op >= 0x15 && op <= 0x19) || (op >= 0x36 && op <= 0x3a) ||
        op == 0xa9 || op == 0xbc)
        return 2;
    if (op == 0x11 || op == 0x13 || op == 0x14 || op == 0x84 || (op >= 0x99 && op <= 0xa8) ||
        (op >= 0xb2 && op <= 0xb8) || op == 0xbb || op == 0xbd || op == 0xc0 || op == 0xc1 ||
        op == 0xc6 || op == 0xc7)
        return 3;
    if (op == 0xc5)
        return 4;
    if (op == 0xb9 || op == 0xba || op == 0xc8 || op == 0xc9)
        return 5;
    if (op == 0xc4) /* wide */
        return pc + 1 < n ? (code[pc + 1] == 0x84 ? 6 : 4) : 0;
    if (op == 0xaa || op == 0xab) {
        size_t p = (pc + 4) & ~(size_t)3;
        if (p + 12 > n)
            return 0;
        if (op == 0xaa) {
            int64_t lo = (int32_t)u4(code + p + 4), hi = (int32_t)u4(code + p + 8);
            if (hi < lo || hi - lo > 65535)
                return 0;
            return p + 12 + (size_t)(hi - lo + 1) * 4 - pc;
        }
        int64_t np = (int32_t)u4(code + p + 4);
        if (np < 0 || np > 65535)
            return 0;
        return p + 8 + (size_t)np * 8 - pc;
    }
    return 0;
}

static int is_return(unsigned op) { return op >= 0xac && op <= 0xb1; }

typedef struct map {
    const uint32_t *rets; /* sorted offsets of the returns */
    size_t n;
    uint32_t ins;         /* bytes inserted before each return */
} map;

/* M(o): where old offset o moves (a return's hook goes where the return was). */
static uint32_t M(const map *m, uint32_t o)
{
    size_t lo = 0, hi = m->n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (m->rets[mid] < o)
            lo = mid + 1;
        else
            hi = mid;
    }
    return o + (uint32_t)(m->ins * lo);
}

/* One verification_type_info; returns bytes read or 0. */
static size_t vti(buf *o, const map *m, const unsigned char *p, const unsigned char *end)
{
    if (p >= end)
        return 0;
    unsigned tag = p[0];
    put1(o, tag);
    if (tag <= 6)
        return 1;
    if (p + 3 > end || tag > 8)
        return 0;
    put2(o, tag == 8 ? M(m, u2(p + 1)) : u2(p + 1));
    return 3;
}

/* Re-encodes a StackMapTable body with moved offsets. Returns 0, or -1 if malformed. */
static int stack_map(buf *o, const map *m, const unsigned char *p, const unsigned char *end)
{
    if (p + 2 > end)
        return -1;
    unsigned count = u2(p);
    put2(o, count);
    p += 2;
    int64_t prev_old = -1, prev_new = -1;
    for (unsigned f = 0; f < count; f++) {
        if (p >= end)
            return -1;
        unsigned t = *p++;
        unsigned delta;
        if (t <= 127) {
            delta = t <= 63 ? t : t - 64;
        } else if (t >= 247) {
            if (p + 2 > end)
                return -1;
            delta = u2(p);
            p += 2;
        } else {
            return -1;
        }
        int64_t old_abs = prev_old + delta + 1;
        int64_t new_abs = M(m, (uint32_t)old_abs);
        int64_t nd = new_abs - prev_new - 1;
        if (nd < 0 || nd > 65535)
            return -1;
        prev_old = old_abs;
        prev_new = new_abs;
        size_t k;
        if (t <= 63 || t == 251) {
            if (nd <= 63)
                put1(o, (unsigned)nd);
            else {
                put1(o, 251);
                put2(o, (unsigned)nd);
            }
        } else if (t <= 127 || t == 247) {
            if (nd <= 63)
                put1(o, 64 + (unsigned)nd);
            else {
                put1(o, 247);
                put2(o, (unsigned)nd);
            }
            if (!(k = vti(o, m, p, end)))
                return -1;
            p += k;
        } else if (t <= 250) { /* chop */
            put1(o, t);
            put2(o, (unsigned)nd);
        } else if (t <= 254) { /* append */
            put1(o, t);
            put2(o, (unsigned)nd);
            for (unsigned i = 0; i < t - 251; i++) {
                if (!(k = vti(o, m, p, end)))
                    return -1;
                p += k;
            }
        } else { /* full_frame */
            put1(o, t);
            put2(o, (unsigned)nd);
            for (int part = 0; part < 2; part++) {
                if (p + 2 > end)
                    return -1;
                unsigned nv = u2(p);
                put2(o, nv);
                p += 2;
                for (unsigned i = 0; i < nv; i++) {
                    if (!(k = vti(o, m, p, end)))
                        return -1;
                    p += k;
                }
            }
        }
    }
    return p == end ? 0 : -1;
}

/* Rewrites one Code attribute body a[0..alen) into o, hook[0..ins) before each return.
 * Returns 0, or -1 to keep the method as it was (o is then rewound by the caller). */
static int rewrite_code(const cls *c, const unsigned char *a, uint32_t alen,
                        const unsigned char *hook, uint32_t ins, buf *o)
{
    if (alen < 12)
        return -1;
    unsigned max_stack = u2(a), max_locals = u2(a + 2);
    uint32_t clen = u4(a + 4);
    if (clen == 0 || clen > 65535 || (uint64_t)clen + 10 > alen)
        return -1;
    const unsigned char *code = a + 8;
    uint32_t *rets = malloc(clen * sizeof *rets);
    if (!rets)
        return -1;
    size_t nret = 0;
    int rc = -1;
    for (size_t pc = 0; pc < clen;) {
        size_t l = insn_len(code, clen, pc);
        if (l == 0 || pc + l > clen)
            goto out;
        if (is_return(code[pc]))
            rets[nret++] = (uint32_t)pc;
        pc += l;
    }
    if (nret == 0 || clen + ins * nret > 65535)
        goto out;
    map m = {rets, nret, ins};
    put2(o, max_stack + 2 > 65535 ? 65535 : max_stack + 2); /* both hooks push two words */
    put2(o, max_locals);
    put4(o, (uint32_t)(clen + ins * nret));
    for (size_t pc = 0; pc < clen;) {
        size_t l = insn_len(code, clen, pc);
        unsigned op = code[pc];
        int64_t np = M(&m, (uint32_t)pc);
        if (is_return(op)) {
            put(o, hook, ins);
            put1(o, op);
        } else if ((op >= 0x99 && op <= 0xa8) || op == 0xc6 || op == 0xc7) {
            int64_t t = (int64_t)pc + (int16_t)u2(code + pc + 1);
            if (t < 0 || t >= clen)
                goto out;
            int64_t nr = (int64_t)M(&m, (uint32_t)t) - np;
            if (nr < -32768 || nr > 32767)
                goto out;
            put1(o, op);
            put2(o, (unsigned)(nr & 0xffff));
        } else if (op == 0xc8 || op == 0xc9) {
            int64_t t = (int64_t)pc + (int32_t)u4(code + pc + 1);
            if (t < 0 || t >= clen)
                goto out;
            put1(o, op);
            put4(o, (uint32_t)((int64_t)M(&m, (uint32_t)t) - np));
        } else if (op == 0xaa || op == 0xab) {
            size_t p = (pc + 4) & ~(size_t)3;
            put(o, code + pc, p - pc); /* opcode and zero padding: alignment is kept */
            size_t n_off = op == 0xaa ? (size_t)((int32_t)u4(code + p + 8) -
                                                 (int32_t)u4(code + p + 4) + 1)
                                      : (size_t)u4(code + p + 4);
            size_t q = p;
            for (size_t i = 0; i < 1 + (op == 0xaa ? 2 : 1) + n_off * (op == 0xaa ? 1 : 2);
                 i++, q += 4) {
                /* table: default, low, high, offsets; lookup: default, npairs, (key, off) */
                int is_off = i == 0 || (op == 0xaa ? i >= 3 : (i >= 2 && (i - 2) % 2 == 1));
                if (!is_off) {
                    put(o, code + q, 4);
                    continue;
                }
                int64_t t = (int64_t)pc + (int32_t)u4(code + q);
                if (t < 0 || t >= clen)
                    goto out;
                put4(o, (uint32_t)((int64_t)M(&m, (uint32_t)t) - np));
            }
        } else {
            put(o, code + pc, l);
        }
        pc += l;
    }
    const unsigned char *p = code + clen, *end = a + alen;
    unsigned n_exc = u2(p);
    p += 2;
    if (p + (size_t)n_exc * 8 + 2 > end)
        goto out;
    put2(o, n_exc);
    for (unsigned i = 0; i < n_exc; i++, p += 8) {
        put2(o, M(&m, u2(p)));
        put2(o, M(&m, u2(p + 2)));
        put2(o, M(&m, u2(p + 4)));
        put2(o, u2(p + 6));
    }
    unsigned n_attr = u2(p);
    p += 2;
    put2(o, n_attr);
    for (unsigned i = 0; i < n_attr; i++) {
        if (p + 6 > end)
            goto out;
        unsigned name = u2(p);
        uint32_t len = u4(p + 2);
        const unsigned char *b = p + 6, *be = b + len;
        if (len > (size_t)(end - b))
            goto out;
        put2(o, name);
        size_t len_at = o->n;
        put4(o, 0);
        if (utf8_is(c, name, "LineNumberTable")) {
            if (len < 2 || 2 + (size_t)u2(b) * 4 != len)
                goto out;
            put2(o, u2(b));
            for (const unsigned char *q = b + 2; q < be; q += 4) {
                put2(o, M(&m, u2(q)));
                put2(o, u2(q + 2));
            }
        } else if (utf8_is(c, name, "LocalVariableTable") ||
                   utf8_is(c, name, "LocalVariableTypeTable")) {
            if (len < 2 || 2 + (size_t)u2(b) * 10 != len)
                goto out;
            put2(o, u2(b));
            for (const unsigned char *q = b + 2; q < be; q += 10) {
                uint32_t s = u2(q), e = s + u2(q + 2);
                put2(o, M(&m, s));
                put2(o, M(&m, e) - M(&m, s));
                put(o, q + 4, 6);
            }
        } else if (utf8_is(c, name, "StackMapTable")) {
            if (stack_map(o, &m, b, be) != 0)
                goto out;
        } else if (utf8_is(c, name, "RuntimeVisibleTypeAnnotations") ||
                   utf8_is(c, name, "RuntimeInvisibleTypeAnnotations")) {
            goto out; /* they hold code offsets in a format not worth rewriting here */
        } else {
            put(o, b, len);
        }
        if (o->err)
            goto out;
        uint32_t nl = (uint32_t)(o->n - len_at - 4);
        o->p[len_at] = (unsigned char)(nl >> 24);
        o->p[len_at + 1] = (unsigned char)(nl >> 16);
        o->p[len_at + 2] = (unsigned char)(nl >> 8);
        o->p[len_at + 3] = (unsigned char)nl;
        p = be;
    }
    rc = p == end && !o->err ? 0 : -1;
out:
    free(rets);
    return rc;
}

/* Skips attributes at *pos; returns 0 or -1. */
static int skip_attrs(const unsigned char *in, size_t n, size_t *pos)
{
    if (*pos + 2 > n)
        return -1;
    unsigned na = u2(in + *pos);
    *pos += 2;
    for (unsigned i = 0; i < na; i++) {
        if (*pos + 6 > n)
            return -1;
        uint32_t l = u4(in + *pos + 2);
        if (l > n - *pos - 6)
            return -1;
        *pos += 6 + l;
    }
    return 0;
}

/* Both rewrites. stamp NULL: the call hook (rule per target); else the stamp hook and the
 * field. */
static int rewrite(const unsigned char *in, size_t n, const rw_target *targets, int n_targets,
                   const char *hook_class, const char *hook_name, const rw_stamp *stamp,
                   unsigned char **out, size_t *out_len)
{
    const char *hook_desc = stamp ? "(I)I" : "(Ljava/lang/Object;I)V";
    if (n < 10 || u4(in) != 0xCAFEBABEu)
        return -1;
    if (stamp && (stamp->slot < 0 || stamp->slot > 32767))
        return -1;
    cls c = {in, n, NULL, u2(in + 8)};
    unsigned n_new = stamp ? 10 : 6; /* constant-pool entries added */
    if (c.cp_count == 0 || c.cp_count + n_new > 65535)
        return -1;
    c.cp_off = calloc(c.cp_count, sizeof *c.cp_off);
    if (!c.cp_off)
        return -1;
    int rc = -1, rewritten = 0;
    buf o = {0};
    size_t pos = 10;
    for (unsigned i = 1; i < c.cp_count; i++) {
        if (pos >= n)
            goto out;
        size_t sz;
        switch (in[pos]) {
        case 1: sz = pos + 3 <= n ? 3 + u2(in + pos + 1) : 0; break;
        case 3: case 4: case 9: case 10: case 11: case 12: case 17: case 18: sz = 5; break;
        case 5: case 6: sz = 9; break;
        case 7: case 8: case 16: case 19: case 20: sz = 3; break;
        case 15: sz = 4; break;
        default: goto out;
        }
        if (sz == 0 || sz > n - pos)
            goto out;
        c.cp_off[i] = (uint32_t)pos;
        /* a Long or Double takes two slots (JVMS 4.4.5); in the last slot its second one
         * would be the first added entry, so every hook would name the wrong entry (and a
         * second rewrite would misread the class): such a class is malformed */
        if (in[pos] == 5 || in[pos] == 6) {
            if (i + 1 >= c.cp_count)
                goto out;
            i++;
        }
        pos += sz;
    }
    size_t cp_end = pos;
    if (pos + 8 > n)
        goto out;
    unsigned acc_class = u2(in + pos), this_class = u2(in + pos + 2);
    /* a field cannot go into an interface (a default close()), an annotation or a module */
    if (stamp && (acc_class & (0x0200 | 0x2000 | 0x8000)))
        goto out;
    pos += 6;
    pos += 2 + 2 * (size_t)u2(in + pos);
    if (pos + 2 > n)
        goto out;
    size_t fields_at = pos;
    unsigned nf = u2(in + pos);
    pos += 2;
    for (unsigned i = 0; i < nf; i++) {
        if (pos + 6 > n)
            goto out;
        if (stamp && utf8_is(&c, u2(in + pos + 2), stamp->field))
            goto out; /* stamped already */
        pos += 6;
        if (skip_attrs(in, n, &pos) != 0)
            goto out;
    }
    size_t methods_at = pos;
    if (pos + 2 > n || (stamp && nf == 65535))
        goto out;

    /* the new constant-pool entries, after the old ones: Utf8 class, Class, Utf8 name,
     * Utf8 descriptor, NameAndType, Methodref (its index is the hook's); with a stamp also
     * Utf8 field name, Utf8 "I", NameAndType, Fieldref (this class's new field) */
    unsigned base = c.cp_count, mref = base + 5, fref = base + 9;
    put(&o, in, 8);
    put2(&o, c.cp_count + n_new);
    put(&o, in + 10, cp_end - 10);
    put1(&o, 1);
    put2(&o, (unsigned)strlen(hook_class));
    put(&o, hook_class, strlen(hook_class));
    put1(&o, 7);
    put2(&o, base);
    put1(&o, 1);
    put2(&o, (unsigned)strlen(hook_name));
    put(&o, hook_name, strlen(hook_name));
    put1(&o, 1);
    put2(&o, (unsigned)strlen(hook_desc));
    put(&o, hook_desc, strlen(hook_desc));
    put1(&o, 12);
    put2(&o, base + 2);
    put2(&o, base + 3);
    put1(&o, 10);
    put2(&o, base + 1);
    put2(&o, base + 4);
    if (stamp) {
        put1(&o, 1);
        put2(&o, (unsigned)strlen(stamp->field));
        put(&o, stamp->field, strlen(stamp->field));
        put1(&o, 1);
        put2(&o, 1);
        put1(&o, 'I');
        put1(&o, 12);
        put2(&o, base + 6);
        put2(&o, base + 7);
        put1(&o, 9);
        put2(&o, this_class);
        put2(&o, base + 8);
        put(&o, in + cp_end, fields_at - cp_end);
        put2(&o, nf + 1);
        put(&o, in + fields_at + 2, methods_at - fields_at - 2);
        put2(&o, RW_STAMP_ACC);
        put2(&o, base + 6);
        put2(&o, base + 7);
        put2(&o, 0);
    } else {
        put(&o, in + cp_end, methods_at - cp_end);
    }

    unsigned nm = u2(in + pos);
    put2(&o, nm);
    pos += 2;
    for (unsigned i = 0; i < nm; i++) {
        if (pos + 8 > n)
            goto out;
        unsigned acc = u2(in + pos), name = u2(in + pos + 2), desc = u2(in + pos + 4);
        int rule = -1;
        if (!(acc & (0x0008 | 0x0100 | 0x0400))) /* not static, native or abstract */
            for (int t = 0; t < n_targets && rule < 0; t++)
                if (utf8_is(&c, name, targets[t].name) &&
                    (!targets[t].desc || utf8_is(&c, desc, targets[t].desc)))
                    rule = targets[t].rule;
        unsigned char hook[RW_INSERT_STAMP] = {0};
        uint32_t ins = RW_INSERT;
        hook[0] = 0x2a; /* aload_0 */
        if (stamp) {
            ins = RW_INSERT_STAMP;
            hook[1] = 0x11; /* sipush */
            hook[2] = (unsigned char)(stamp->slot >> 8);
            hook[3] = (unsigned char)(stamp->slot & 0xff);
            hook[4] = 0xb8; /* invokestatic */
            hook[5] = (unsigned char)(mref >> 8);
            hook[6] = (unsigned char)(mref & 0xff);
            hook[7] = 0xb5; /* putfield */
            hook[8] = (unsigned char)(fref >> 8);
            hook[9] = (unsigned char)(fref & 0xff);
        } else if (rule > 127) { /* same 8 bytes: one nop instead of two */
            hook[1] = 0x11; /* sipush */
            hook[2] = (unsigned char)((rule >> 8) & 0x7f);
            hook[3] = (unsigned char)(rule & 0xff);
            hook[4] = 0xb8;
            hook[5] = (unsigned char)(mref >> 8);
            hook[6] = (unsigned char)(mref & 0xff);
        } else {
            hook[1] = 0x10; /* bipush */
            hook[2] = (unsigned char)(rule & 0x7f);
            hook[3] = 0xb8;
            hook[4] = (unsigned char)(mref >> 8);
            hook[5] = (unsigned char)(mref & 0xff);
        }
        put(&o, in + pos, 6);
        unsigned na = u2(in + pos + 6);
        put2(&o, na);
        pos += 8;
        for (unsigned k = 0; k < na; k++) {
            if (pos + 6 > n)
                goto out;
            unsigned an = u2(in + pos);
            uint32_t al = u4(in + pos + 2);
            if (al > n - pos - 6)
                goto out;
            size_t mark = o.n;
            if (rule >= 0 && utf8_is(&c, an, "Code")) {
                put2(&o, an);
                put4(&o, 0);
                if (rewrite_code(&c, in + pos + 6, al, hook, ins, &o) == 0 && !o.err) {
                    uint32_t nl = (uint32_t)(o.n - mark - 6);
                    o.p[mark + 2] = (unsigned char)(nl >> 24);
                    o.p[mark + 3] = (unsigned char)(nl >> 16);
                    o.p[mark + 4] = (unsigned char)(nl >> 8);
                    o.p[mark + 5] = (unsigned char)nl;
                    rewritten++;
                    pos += 6 + al;
                    continue;
                }
                o.n = mark; /* keep the method as it was */
                o.err = 0;
            }
            put(&o, in + pos, 6 + al);
            pos += 6 + al;
        }
    }
    /* the class's own attributes: copied as they are, but they must be whole (a class file
     * cut after its methods, or with bytes after its end, is refused) */
    size_t attrs_at = pos;
    if (skip_attrs(in, n, &pos) != 0 || pos != n)
        goto out;
    put(&o, in + attrs_at, n - attrs_at);
    if (o.err)
        goto out;
    rc = 0;
    if (rewritten > 0) {
        *out = o.p;
        *out_len = o.n;
        o.p = NULL;
        rc = rewritten;
    }
out:
    free(o.p);
    free(c.cp_off);
    return rc;
}

int rw_rewrite(const unsigned char *in, size_t n, const rw_target *targets, int n_targets,
               const char *hook_class, const char *hook_name, unsigned char **out,
               size_t *out_len)
{
    return rewrite(in, n, targets, n_targets, hook_class, hook_name, NULL, out, out_len);
}

int rw_rewrite_stamp(const unsigned char *in, size_t n, const rw_target *targets,
                     int n_targets, const char *hook_class, const char *hook_name,
                     const rw_stamp *stamp, unsigned char **out, size_t *out_len)
{
    if (!stamp || !stamp->field)
        return -1;
    return rewrite(in, n, targets, n_targets, hook_class, hook_name, stamp, out, out_len);
}
