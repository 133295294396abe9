#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# metadata_counts.sh: the counts in `analyze`'s METADATA block (LeakCanary's keys) are the
# dump's truth on a heap a real JVM writes at test time (tests/programs/meta/MetaCounts.java):
# Class, Instance, Primitive array and Object array counts equal the CLASS DUMP, INSTANCE DUMP,
# PRIMITIVE ARRAY DUMP and OBJECT ARRAY DUMP records an independent walk of the file counts
# (below, in Python); Thread count equals the distinct thread objects of the ROOT THREAD OBJECT
# records and the live thread count the JVM reported just before dumping; Heap total bytes
# equals the total `histo` prints for the same dump (one size model in every verb); and the
# program's 12,345 Foo instances are all there.
set -euo pipefail
: "${LEAKRAY:?}" "${LEAKRAY_SRC:?}" "${LEAKRAY_BUILD:?}"
. "$LEAKRAY_SRC/tests/e2e/need_lib.bash"
need_tools javac java python3
work="$LEAKRAY_BUILD/tmp/metadata_counts"
rm -rf "$work"
mkdir -p "$work/classes"
javac -d "$work/classes" "$LEAKRAY_SRC/tests/programs/meta/MetaCounts.java"
java -cp "$work/classes" MetaCounts "$work/m.hprof" > "$work/jvm.txt"
"$LEAKRAY" analyze "$work/m.hprof" --no-timing --no-suspects > "$work/a.txt"
"$LEAKRAY" histo "$work/m.hprof" --json > "$work/h.json"
python3 - "$work/m.hprof" "$work/a.txt" "$work/h.json" "$work/jvm.txt" <<'PY'
import json, re, struct, sys

dump, text, histo, jvm = sys.argv[1:5]
d = open(dump, "rb").read()
z = d.index(b"\0")
ids = struct.unpack(">I", d[z + 1:z + 5])[0]
size = {2: ids, 4: 1, 5: 2, 6: 4, 7: 8, 8: 1, 9: 2, 10: 4, 11: 8}
# fixed body sizes of the root sub-records
roots = {0xFF: ids, 0x01: 2 * ids, 0x02: ids + 8, 0x03: ids + 8, 0x04: ids + 4, 0x05: ids,
         0x06: ids + 4, 0x07: ids, 0x08: ids + 8}
n = {"class": 0, "instance": 0, "prim": 0, "objarr": 0}
threads = set()
p = z + 13
while p < len(d):
    tag, length = d[p], struct.unpack(">I", d[p + 5:p + 9])[0]
    p += 9
    end = p + length
    q = p if tag in (0x0C, 0x1C) else end
    while q < end:
        st = d[q]
        q += 1
        if st in roots:
            if st == 0x08:
                tid = int.from_bytes(d[q:q + ids], "big")
                if tid:
                    threads.add(tid)
            q += roots[st]
        elif st == 0x20:
            q += 7 * ids + 8
            k = struct.unpack(">H", d[q:q + 2])[0]
            q += 2
            for _ in range(k):
                q += 3 + size[d[q + 2]]
            k = struct.unpack(">H", d[q:q + 2])[0]
            q += 2
            for _ in range(k):
                q += ids + 1 + size[d[q + ids]]
            k = struct.unpack(">H", d[q:q + 2])[0]
            q += 2 + k * (ids + 1)
            n["class"] += 1
        elif st == 0x21:
            q += 2 * ids + 8 + struct.unpack(">I", d[q + 2 * ids + 4:q + 2 * ids + 8])[0]
            n["instance"] += 1
        elif st == 0x22:
            q += 2 * ids + 8 + ids * struct.unpack(">I", d[q + ids + 4:q + ids + 8])[0]
            n["objarr"] += 1
        elif st == 0x23:
            k = struct.unpack(">I", d[q + ids + 4:q + ids + 8])[0]
            q += ids + 9 + k * size[d[q + ids + 8]]
            n["prim"] += 1
        else:
            sys.exit("FAIL: unexpected heap sub-record 0x%02x at byte %d" % (st, q - 1))
    p = end

meta = dict(re.findall(r"^(Class count|Instance count|Primitive array count|Object array count|"
                       r"Thread count|Heap total bytes): (\d+)$", open(text).read(), re.M))
got = {k: int(v) for k, v in meta.items()}
want = {"Class count": n["class"], "Instance count": n["instance"],
        "Primitive array count": n["prim"], "Object array count": n["objarr"],
        "Thread count": len(threads)}
for k, v in want.items():
    assert got.get(k) == v, "%s: analyze says %s, the dump has %d" % (k, got.get(k), v)
jvm_threads = int(re.search(r"threads (\d+)", open(jvm).read()).group(1))
assert got["Thread count"] == jvm_threads, (got["Thread count"], jvm_threads)
h = json.load(open(histo))
assert got["Heap total bytes"] == h["total"]["shallow"], (got["Heap total bytes"], h["total"])
assert h["total"]["count"] == n["class"] + n["instance"] + n["prim"] + n["objarr"], h["total"]
foo = [c for c in h["classes"] if c["name"] == "MetaCounts$Foo"]
assert foo and foo[0]["count"] == 12345, foo
print("metadata counts ok: %d classes, %d instances, %d primitive arrays, %d object arrays, "
      "%d threads, %d bytes" % (n["class"], n["instance"], n["prim"], n["objarr"], len(threads),
                                got["Heap total bytes"]))
PY
echo "metadata_counts: ok"
