#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# hprof_mutate.py: writes a bounded, deterministic set of damaged copies of an HPROF file for
# tests/corrupt/hprof_mutations.sh. It walks the records (top level and heap-dump sub-records,
# HotSpot and Android tags) to find the byte offsets worth damaging:
#   - cuts at record boundaries and in the middle of records (header, first record, heap dump
#     segment header, instance/array/class dumps, second segment, HEAP_DUMP_END, last byte);
#   - seeded random bit flips after the header (bounded count per case);
#   - hostile length/count fields: 0xFFFFFFFF record and segment lengths, instance lengths,
#     array counts larger than the file, segment lengths that cut a sub-record, a STRING
#     record shorter than the id size, a class with
#     0xFFFF fields, id sizes 0/3/16, an unknown heap-dump sub-record tag.
# usage: hprof_mutate.py walk FILE            (prints the record walk, for debugging)
#        hprof_mutate.py gen FILE OUTDIR TAG  (writes cases; prints TSV: name expect path what)
# expect is "3" (must be rejected as bad input) or "0|3" (the damage may leave a valid dump).
import os
import random
import struct
import sys

HEADER_MAX = 64
SEGMENT_MAX = 16384  # bytes of sub-records per HEAP_DUMP_SEGMENT written by shrink

# Fixed-size heap-dump sub-records: tag -> body size in (ids, extra bytes).
FIXED_SUB = {
    0xFF: (1, 0), 0x01: (2, 0), 0x02: (1, 8), 0x03: (1, 8), 0x04: (1, 4), 0x05: (1, 0),
    0x06: (1, 4), 0x07: (1, 0), 0x08: (1, 8),
    # Android
    0x89: (1, 0), 0x8A: (1, 0), 0x8B: (1, 0), 0x8C: (1, 0), 0x8D: (1, 0), 0x8E: (1, 8),
    0x90: (1, 0), 0xFE: (1, 4),
}
TYPE_SIZE = {4: 1, 5: 2, 6: 4, 7: 8, 8: 1, 9: 2, 10: 4, 11: 8}


class Walk:
    """Offsets of interesting fields in one HPROF file."""

    def __init__(self, data):
        self.data = data
        nul = data.index(b"\0", 0, HEADER_MAX)
        self.version = data[:nul].decode("ascii", "replace")
        self.idsize_off = nul + 1
        self.id = struct.unpack_from(">I", data, self.idsize_off)[0]
        self.body = nul + 1 + 4 + 8
        self.top = []  # (offset, tag, length)
        self.sub = []  # (offset, tag, dict of field name -> offset, end offset)
        self.strings = []  # offsets of STRING (0x01) records
        off = self.body
        while off + 9 <= len(data):
            tag, _, ln = struct.unpack_from(">BII", data, off)
            self.top.append((off, tag, ln))
            if tag == 0x01:
                self.strings.append(off)
            if tag in (0x0C, 0x1C):
                self._walk_heap(off + 9, min(off + 9 + ln, len(data)))
            off += 9 + ln

    def _rid(self, off):
        return off + self.id

    def _walk_heap(self, off, end):
        d, ids = self.data, self.id
        while off < end:
            tag = d[off]
            p = off + 1
            f = {}
            if tag in FIXED_SUB:
                n_ids, extra = FIXED_SUB[tag]
                p += n_ids * ids + extra
            elif tag == 0x20:  # CLASS_DUMP
                p += ids + 4 + 6 * ids
                f["instance_size"] = p
                p += 4
                f["cp_count"] = p
                (n,) = struct.unpack_from(">H", d, p)
                p += 2
                for _ in range(n):
                    t = d[p + 2]
                    p += 3 + (ids if t == 2 else TYPE_SIZE[t])
                f["static_count"] = p
                (n,) = struct.unpack_from(">H", d, p)
                p += 2
                for _ in range(n):
                    t = d[p + ids]
                    p += ids + 1 + (ids if t == 2 else TYPE_SIZE[t])
                f["field_count"] = p
                (n,) = struct.unpack_from(">H", d, p)
                p += 2 + n * (ids + 1)
            elif tag == 0x21:  # INSTANCE_DUMP
                f["length"] = off + 1 + ids + 4 + ids
                (n,) = struct.unpack_from(">I", d, f["length"])
                p = f["length"] + 4 + n
            elif tag == 0x22:  # OBJ_ARRAY_DUMP
                f["count"] = off + 1 + ids + 4
                (n,) = struct.unpack_from(">I", d, f["count"])
                p = f["count"] + 4 + ids + n * ids
            elif tag in (0x23, 0xC3):  # PRIM_ARRAY_DUMP (+ Android NODATA)
                f["count"] = off + 1 + ids + 4
                (n,) = struct.unpack_from(">I", d, f["count"])
                t = d[f["count"] + 4]
                f["type"] = f["count"] + 4
                p = f["count"] + 5 + (0 if tag == 0xC3 else n * TYPE_SIZE[t])
            else:
                raise ValueError(f"unknown sub-record tag 0x{tag:02x} at 0x{off:x}")
            self.sub.append((off, tag, f, p))
            off = p

    def first_sub(self, tag):
        for s in self.sub:
            if s[1] == tag:
                return s
        return None


def put_u4(buf, off, v):
    struct.pack_into(">I", buf, off, v & 0xFFFFFFFF)


def gen(path, outdir, tag):
    data = open(path, "rb").read()
    w = Walk(data)
    cases = []

    def emit(name, expect, buf, what):
        p = os.path.join(outdir, f"{tag}-{name}.hprof")
        with open(p, "wb") as f:
            f.write(bytes(buf))
        cases.append((f"{tag}-{name}", expect, p, what))

    # ---- cuts ----
    heap = [t for t in w.top if t[1] in (0x0C, 0x1C)]
    inst = w.first_sub(0x21)
    cls = w.first_sub(0x20)
    oarr = w.first_sub(0x22)
    parr = w.first_sub(0x23)
    cuts = [
        ("cut-in-magic", 7, "3"),
        ("cut-in-idsize", w.idsize_off + 2, "3"),
        ("cut-after-header", w.body, "0|3"),
        ("cut-in-record-header", w.top[0][0] + 5, "3"),
        ("cut-in-first-record", w.top[0][0] + 9 + max(1, w.top[0][2] // 2), "3"),
        ("cut-at-heap-dump", heap[0][0], "0|3"),
        ("cut-in-segment-header", heap[0][0] + 4, "3"),
        ("cut-in-class-dump", cls and cls[0] + 1 + w.id * 3, "3"),
        ("cut-in-instance", inst and inst[0] + 1 + w.id + 4 + w.id + 4 + 1, "3"),
        ("cut-in-obj-array", oarr and oarr[0] + 1 + w.id + 4 + 4 + w.id + 1, "3"),
        ("cut-in-prim-array", parr and parr[0] + 3, "3"),
        ("cut-last-byte", len(data) - 1, "0|3"),
    ]
    if len(heap) >= 2:
        cuts.append(("cut-at-second-segment", heap[1][0], "0|3"))
        cuts.append(("cut-in-second-segment", heap[1][0] + 9 + heap[1][2] // 2, "3"))
    ends = [t for t in w.top if t[1] == 0x2C]
    if ends:
        cuts.append(("cut-before-heap-dump-end", ends[-1][0], "0|3"))
    for name, at, expect in cuts:
        if at is None:  # this dump has no such record
            continue
        emit(name, expect, data[:at], f"file cut at byte {at}")

    # ---- seeded bit flips (after the header; header damage has hand-made cases) ----
    rnd = random.Random(0x1EA4 + len(data))
    for k in range(10):
        buf = bytearray(data)
        n = 1 + (k % 4) * 3
        spots = []
        for _ in range(n):
            at = rnd.randrange(w.body, len(data))
            buf[at] ^= 1 << rnd.randrange(8)
            spots.append(at)
        emit(f"flip{k}", "0|3", buf, "bits flipped at " + ",".join(hex(s) for s in spots))

    # ---- hostile lengths and counts ----
    def hostile(name, at, value, what, size=4):
        if at is None:  # this dump has no such record
            return
        buf = bytearray(data)
        if size == 4:
            put_u4(buf, at, value)
        elif size == 2:
            struct.pack_into(">H", buf, at, value)
        else:
            buf[at] = value
        emit(name, "3", buf, what)

    hostile("record-len-max", w.top[0][0] + 5, 0xFFFFFFFF, "first record length 0xFFFFFFFF")
    hostile("segment-len-max", heap[0][0] + 5, 0xFFFFFFFF, "heap dump length 0xFFFFFFFF")
    if len(heap) >= 2:
        hostile("second-segment-len-max", heap[1][0] + 5, 0xFFFFFFFF,
                "second heap dump segment length 0xFFFFFFFF")
        hostile("second-segment-len-short", heap[1][0] + 5, max(1, heap[1][2] - 3),
                "second heap dump segment 3 bytes short: its last sub-record crosses the end")
    hostile("instance-len-max", inst and inst[2]["length"], 0xFFFFFFFF, "instance length 0xFFFFFFFF")
    hostile("obj-array-count-huge", oarr and oarr[2]["count"], len(data) + 1,
            "object array count larger than the file")
    hostile("obj-array-count-max", oarr and oarr[2]["count"], 0xFFFFFFFF, "object array count 2^32-1")
    hostile("prim-array-count-huge", parr and parr[2]["count"], 0x7FFFFFFF,
            "primitive array count 2^31-1")
    hostile("prim-array-bad-type", parr and parr[2]["type"], 0x0D, "primitive array element type 13", 1)
    hostile("class-field-count-max", cls and cls[2]["field_count"], 0xFFFF,
            "class dump with 65535 instance fields", 2)
    hostile("string-shorter-than-id", w.strings[0] + 5, w.id - 1,
            f"STRING record length {w.id - 1} < id size")
    hostile("idsize-0", w.idsize_off, 0, "identifier size 0")
    hostile("idsize-3", w.idsize_off, 3, "identifier size 3")
    hostile("idsize-16", w.idsize_off, 16, "identifier size 16")
    hostile("unknown-subrecord", inst and inst[0], 0x42, "heap dump sub-record tag 0x42", 1)
    for c in cases:
        print("\t".join(c))


def shrink(path, out, budget):
    """Writes a small but consistent HPROF cut from a real one: the header, the STRING and
    LOAD_CLASS records of a few classes (java.lang.Object, java.lang.String and the classes
    with most instances, plus their superclasses), HEAP_DUMP_SEGMENTs with some roots, the
    class dumps of those classes, their instances and a few arrays, split into segments of
    at most SEGMENT_MAX bytes, then HEAP_DUMP_END. Used
    to seed the fuzz corpus with valid dumps far smaller than any real one."""
    d = open(path, "rb").read()
    w = Walk(d)
    ids = w.id
    rid = (lambda b, o: struct.unpack_from(">I" if ids == 4 else ">Q", b, o)[0])
    strings, loads = {}, {}
    for off, tag, ln in w.top:
        if tag == 0x01 and ln >= ids:
            strings[rid(d, off + 9)] = d[off:off + 9 + ln]
        elif tag == 0x02:
            loads[rid(d, off + 9 + 4)] = (d[off:off + 9 + ln], rid(d, off + 9 + 8 + ids))
    subs = []
    for off, tag, f, end in w.sub:
        subs.append((off, tag, d[off:end] if end - off < 1 << 20 and end <= len(d) else None))
    cdump, counts, names = {}, {}, {}
    for off, tag, b in subs:
        if b is None:
            continue
        if tag == 0x20:
            cdump[rid(b, 1)] = b
        elif tag == 0x21:
            c = rid(b, 1 + ids + 4)
            counts[c] = counts.get(c, 0) + 1
    for cid, (rec, nid) in loads.items():
        if nid in strings:
            names[cid] = strings[nid][9 + ids:].decode("utf-8", "replace")
    want = [c for c, n in names.items() if n in ("java/lang/Object", "java.lang.Object",
                                                  "java/lang/String", "java.lang.String")]
    want += sorted(counts, key=lambda c: -counts[c])[:12]
    chosen = []
    for c in want:
        while c and c in cdump and c not in chosen:
            chosen.append(c)
            c = rid(cdump[c], 1 + ids + 4)  # super class
    # Names used by the chosen class dumps: class names, static and instance field names.
    need = set(loads[c][1] for c in chosen if c in loads)
    for c in chosen:
        b = cdump[c]
        p = 1 + ids + 4 + 6 * ids + 4
        (n,) = struct.unpack_from(">H", b, p)
        p += 2
        for _ in range(n):
            t = b[p + 2]
            p += 3 + (ids if t == 2 else TYPE_SIZE[t])
        (n,) = struct.unpack_from(">H", b, p)
        p += 2
        for _ in range(n):
            need.add(rid(b, p))
            t = b[p + ids]
            p += ids + 1 + (ids if t == 2 else TYPE_SIZE[t])
        (n,) = struct.unpack_from(">H", b, p)
        p += 2
        for _ in range(n):
            need.add(rid(b, p))
            p += ids + 1
    head = bytearray(d[:w.body])
    for s in sorted(need):
        if s in strings:
            head += strings[s]
    for c in chosen:
        if c in loads:
            head += loads[c][0]
    parts = [cdump[c] for c in chosen]
    used = len(head) + sum(len(b) for b in parts)
    n_roots = n_arrays = 0
    for off, tag, b in subs:
        if b is None or used + len(b) + 64 > budget:
            continue
        if tag in FIXED_SUB and n_roots < 40:
            n_roots += 1
        elif tag == 0x21 and rid(b, 1 + ids + 4) in chosen:
            pass
        elif tag in (0x22, 0x23) and n_arrays < 60 and len(b) < 2048:
            n_arrays += 1
        else:
            continue
        parts.append(b)
        used += len(b)
    # Several HEAP_DUMP_SEGMENTs, as HotSpot writes them, cut at sub-record boundaries.
    out_b = bytearray(head)
    seg = bytearray()
    for b in parts:
        if seg and len(seg) + len(b) > SEGMENT_MAX:
            out_b += struct.pack(">BII", 0x1C, 0, len(seg)) + seg
            seg = bytearray()
        seg += b
    out_b += struct.pack(">BII", 0x1C, 0, len(seg)) + seg + struct.pack(">BII", 0x2C, 0, 0)
    with open(out, "wb") as f:
        f.write(out_b)


def main():
    if len(sys.argv) == 5 and sys.argv[1] == "shrink":
        shrink(sys.argv[2], sys.argv[3], int(sys.argv[4]))
        return 0
    if len(sys.argv) >= 3 and sys.argv[1] == "walk":
        w = Walk(open(sys.argv[2], "rb").read())
        print(f"version={w.version} id={w.id} records={len(w.top)} sub={len(w.sub)}")
        for off, tag, ln in w.top[:20]:
            print(f"  0x{off:x} tag 0x{tag:02x} len {ln}")
        return 0
    if len(sys.argv) == 5 and sys.argv[1] == "gen":
        gen(sys.argv[2], sys.argv[3], sys.argv[4])
        return 0
    print(__doc__ or "usage: hprof_mutate.py walk FILE | gen FILE OUTDIR TAG", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
