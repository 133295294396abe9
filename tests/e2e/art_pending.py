#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# art_pending.py: writes a copy of an ART heap dump in which the references the GC would hand
# to the ReferenceQueue daemon are on ART's list of cleared references, as a dump written right
# after such a GC holds them: java.lang.ref.ReferenceQueue.unenqueued points at the first,
# each reference's pendingNext at the next, the last one's back at the first (ART keeps the
# list circular). The references taken are those with a queue that are not yet queued or
# pending (queue set, queueNext and pendingNext null), in id order. Nothing else changes, so
# every answer about ownership must be the same on both files.
# usage: art_pending.py IN OUT   (prints the ids put on the list, one a line)
import os
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "corrupt"))
from hprof_mutate import TYPE_SIZE, Walk  # noqa: E402


def main():
    src, dst = sys.argv[1], sys.argv[2]
    data = bytearray(open(src, "rb").read())
    w = Walk(bytes(data))
    ids = w.id

    def rid(off):
        return int.from_bytes(data[off:off + ids], "big")

    def tsize(t):
        return ids if t == 2 else TYPE_SIZE[t]

    strings, class_name = {}, {}
    for off, tag, ln in w.top:
        if tag == 0x01:
            text = bytes(data[off + 9 + ids:off + 9 + ln])
            strings[rid(off + 9)] = text.decode("utf-8", "replace")
        elif tag == 0x02:
            class_name[rid(off + 9 + 4)] = rid(off + 9 + 4 + ids + 4)
    classes = {}  # class id -> (super id, [(field name, type)], {static name: (type, offset)})
    instances = []  # (object id, class id, offset of the field values)
    for off, tag, _, _ in w.sub:
        if tag == 0x20:
            p = off + 1
            cid, sup = rid(p), rid(p + ids + 4)
            p += ids + 4 + 6 * ids + 4
            (n,) = struct.unpack_from(">H", data, p)
            p += 2
            for _ in range(n):
                p += 3 + tsize(data[p + 2])
            (n,) = struct.unpack_from(">H", data, p)
            p += 2
            statics = {}
            for _ in range(n):
                name, t = strings.get(rid(p), ""), data[p + ids]
                statics[name] = (t, p + ids + 1)
                p += ids + 1 + tsize(t)
            (n,) = struct.unpack_from(">H", data, p)
            p += 2
            fields = []
            for _ in range(n):
                fields.append((strings.get(rid(p), ""), data[p + ids]))
                p += ids + 1
            classes[cid] = (sup, fields, statics)
        elif tag == 0x21:
            p = off + 1
            instances.append((rid(p), rid(p + ids + 4), p + ids + 4 + ids + 4))

    def name_of(cid):
        return strings.get(class_name.get(cid), "")

    by_name = {name_of(c): c for c in classes}
    ref_class = by_name["java.lang.ref.Reference"]

    def layout(cid):
        """field name -> (type, offset in the values) for an instance of cid; None if cid
        is no reference class"""
        chain, c = [], cid
        while c in classes:
            chain.append(c)
            c = classes[c][0]
        if ref_class not in chain:
            return None
        out, at = {}, 0
        for c in chain:  # the class's own fields first, then its super's
            for name, t in classes[c][1]:
                out.setdefault(name, (t, at))
                at += tsize(t)
        return out

    picked = []
    for oid, cid, values in sorted(instances):
        lay = layout(cid)
        if lay is None:
            continue
        val = {k: rid(values + o) for k, (t, o) in lay.items() if t == 2}
        if val.get("queue") and not val.get("queueNext") and not val.get("pendingNext"):
            picked.append((oid, values + lay["pendingNext"][1]))
    if len(picked) < 2:
        sys.exit("art_pending.py: fewer than two references to link in " + src)
    for i, (oid, at) in enumerate(picked):
        data[at:at + ids] = picked[(i + 1) % len(picked)][0].to_bytes(ids, "big")
    t, at = classes[by_name["java.lang.ref.ReferenceQueue"]][2]["unenqueued"]
    data[at:at + ids] = picked[0][0].to_bytes(ids, "big")
    open(dst, "wb").write(bytes(data))
    for oid, _ in picked:
        print(oid)


if __name__ == "__main__":
    main()
