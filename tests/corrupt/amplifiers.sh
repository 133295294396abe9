#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# amplifiers.sh: small HPROF files that made leakray hang or take the machine, made at test
# time:
#   - frames.hprof (3 MB): 20,000 LOAD_CLASS records and 2,000 threads naming one 300,000-frame
#     STACK_TRACE whose frame's class serial matches no record. Each thread copied the trace's
#     frames (2,000 x 300,000 frames: 14 GB) and each frame scanned every LOAD_CLASS record
#     (1.2e10 steps); a trace's frames are now read once and shared, the class found by a
#     sorted serial index: `info` within 40 s under a 2 GiB address space, counting 600,000,000
#     stack frames (each thread's, as before);
#   - locals.hprof (22 MB): 20,000 threads and 1,200,000 Java-frame roots. The thread of each
#     root was found by a scan of the threads (65 s for `analyze --watch`): within 40 s;
#   - fields.hprof (1.3 MB): a class of 65,535 reference fields and 30,000 empty instance
#     records of it. The edge census took every field of the class per record, whatever the
#     record held: 7.9 GB to allocate or spill; now no more than the record's bytes hold:
#     `top --max-memory 256M --no-spill` runs.
set -euo pipefail
: "${LEAKRAY:?}" "${LEAKRAY_SRC:?}" "${LEAKRAY_BUILD:?}"
tmp=$LEAKRAY_BUILD/tmp/amplifiers
rm -rf "$tmp"
mkdir -p "$tmp"
fail() { echo "FAIL: $*" >&2; exit 1; }
asan=0
[[ $(ldd "$LEAKRAY" 2>/dev/null) == *libasan* ]] && asan=1

python3 - "$tmp" <<'PY'
import struct, sys

def rec(tag, body):
    return struct.pack(">BII", tag, 0, len(body)) + body

def utf8(i, s):
    return rec(0x01, struct.pack(">Q", i) + s.encode())

def load_class(serial, cid, name):
    return rec(0x02, struct.pack(">IQIQ", serial, cid, 0, name))

def class_dump(cid):  # no fields, no statics
    return struct.pack(">BQIQQQQQQIHHH", 0x20, cid, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)

head = b"JAVA PROFILE 1.0.2\0" + struct.pack(">IQ", 8, 0)
names = b"".join(utf8(i, s) for i, s in
                 ((1, "java.lang.Thread"), (2, "run"), (3, "()V"), (4, "Main.java"),
                  (5, "com.app.Leaky")))
end = rec(0x2C, b"")

# frames.hprof
out = [head, names] + [load_class(i + 1, 0x100000 + 8 * i, 1) for i in range(20000)]
out.append(rec(0x04, struct.pack(">QQQQII", 0x9000, 2, 3, 4, 999999999, 1)))
out.append(rec(0x05, struct.pack(">III", 7, 0, 300000) + struct.pack(">Q", 0x9000) * 300000))
out.append(rec(0x1C, b"".join(struct.pack(">BQII", 0x08, 0x5000 + 8 * i, i + 1, 7)
                              for i in range(2000))))
out.append(end)
open(sys.argv[1] + "/frames.hprof", "wb").write(b"".join(out))

# locals.hprof
n_thr, n_loc, n_obj = 20000, 1200000, 20000
out = [head, names, load_class(1, 0x100000, 1), load_class(2, 0x100008, 5)]
out.append(rec(0x04, struct.pack(">QQQQII", 0x9000, 2, 3, 4, 1, 1)))
out.append(rec(0x05, struct.pack(">III", 7, 0, 10) + struct.pack(">Q", 0x9000) * 10))
seg = [class_dump(0x100000), class_dump(0x100008)]
for i in range(n_thr):
    seg.append(struct.pack(">BQIQI", 0x21, 0x200000 + 8 * i, 0, 0x100000, 0))
    seg.append(struct.pack(">BQII", 0x08, 0x200000 + 8 * i, i + 1, 7))
for k in range(n_obj):
    seg.append(struct.pack(">BQIQI", 0x21, 0x10000000 + 8 * k, 0, 0x100008, 0))
for k in range(n_loc):
    seg.append(struct.pack(">BQII", 0x03, 0x10000000 + 8 * (k % n_obj),
                           k * 7919 % n_thr + 1, k % 10))
out += [rec(0x1C, b"".join(seg)), end]
open(sys.argv[1] + "/locals.hprof", "wb").write(b"".join(out))

# fields.hprof
n_f = 65535
dump = struct.pack(">BQIQQQQQQIHH", 0x20, 0x300000, 0, 0, 0, 0, 0, 0, 0, 8 * n_f, 0, 0)
dump += struct.pack(">H", n_f) + struct.pack(">QB", 2, 2) * n_f   # object fields named "run"
seg = [dump] + [struct.pack(">BQIQI", 0x21, 0x400000 + 8 * i, 0, 0x300000, 0)
                for i in range(30000)]
out = [head, names, load_class(1, 0x300000, 5), rec(0x1C, b"".join(seg)), end]
open(sys.argv[1] + "/fields.hprof", "wb").write(b"".join(out))
PY

rc=0
if [ "$asan" = 0 ]; then # ASan reserves terabytes of address space: ulimit -v cannot apply
    ( ulimit -v $((2 * 1024 * 1024)); exec timeout 40 "$LEAKRAY" info --no-progress \
        "$tmp/frames.hprof" ) > "$tmp/frames.txt" 2> "$tmp/frames.err" || rc=$?
else
    timeout 40 "$LEAKRAY" info --no-progress "$tmp/frames.hprof" > "$tmp/frames.txt" \
        2> "$tmp/frames.err" || rc=$?
fi
[ "$rc" = 0 ] || fail "frames.hprof: exit $rc: $(head -3 "$tmp/frames.err")"
grep -q '^threads: *2,000 (600,000,000 stack frames)$' "$tmp/frames.txt" ||
    fail "frames.hprof: $(grep threads "$tmp/frames.txt")"

rc=0
timeout 40 "$LEAKRAY" analyze --no-progress --json --no-timing --watch com.app.Leaky \
    "$tmp/locals.hprof" > "$tmp/locals.json" 2> "$tmp/locals.err" || rc=$?
[ "$rc" = 0 ] || fail "locals.hprof: exit $rc (124: over 40 s): $(head -3 "$tmp/locals.err")"
python3 - "$tmp/locals.json" <<'PY' || fail "locals.hprof: the watched objects"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["leaking_objects"] == 20000, d["leaking_objects"]
PY
rc=0
timeout 40 "$LEAKRAY" top --no-progress --max-memory 256M --no-spill "$tmp/fields.hprof" \
    > "$tmp/fields.txt" 2> "$tmp/fields.err" || rc=$?
[ "$rc" = 0 ] || fail "fields.hprof: exit $rc: $(head -3 "$tmp/fields.err")"
echo "amplifiers: ok"
