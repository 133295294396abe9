#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# hash_flood.sh: names chosen to collide in a known hash do not make loading quadratic. The
# test builds a multicollision of FNV-1a-32 (17 pairs of 5-byte blocks that collide from the
# same state: their 131,072 concatenations share one hash, a few seconds of search) and
# appends the strings to a small V8 snapshot's string table. The intern table hashed names
# with FNV-1a-32: every insert walked the whole cluster, 58 s for this 11 MB file; its hash
# now starts from a state drawn per process, so `info` takes well under a second.
# Then class ids chosen to collide in the class table's hash (below).
set -euo pipefail
: "${LEAKRAY:?}" "${LEAKRAY_SRC:?}" "${LEAKRAY_BUILD:?}"
command -v python3 >/dev/null || { echo "SKIP: python3 not installed"; exit 77; }
tmp=$LEAKRAY_BUILD/tmp/hash_flood
rm -rf "$tmp"
mkdir -p "$tmp"
python3 - "$LEAKRAY_SRC/tests/data/v8/cliques.heapsnapshot" "$tmp/flood.heapsnapshot" <<'PY'
import itertools, json, random, sys
P, M = 16777619, 0xFFFFFFFF

def run(h, block):
    for b in block:
        h = ((h ^ b) * P) & M
    return h

rng = random.Random(7)
alpha = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
h, pairs = 2166136261, []
for _ in range(17):  # a pair of blocks leading from h to one state
    seen = {}
    while True:
        blk = bytes(rng.choice(alpha) for _ in range(5))
        s = run(h, blk)
        if s in seen and seen[s] != blk:
            pairs.append((seen[s], blk))
            h = s
            break
        seen[s] = blk
names = [b"".join(p).decode() for p in itertools.product(*pairs)]
assert len({run(2166136261, n.encode()) for n in names[:64]}) == 1
d = json.load(open(sys.argv[1]))
d["strings"] += names
open(sys.argv[2], "w").write(json.dumps(d, separators=(",", ":")))
PY
rc=0
timeout 30 "$LEAKRAY" info --no-progress "$tmp/flood.heapsnapshot" >"$tmp/info.txt" \
    2>"$tmp/info.err" || rc=$?
[ "$rc" = 0 ] || { echo "FAIL: exit $rc (124: over 30 s): $(head -3 "$tmp/info.err")"; exit 1; }

# HPROF class ids whose hash_mix64 share their low 32 bits (the finalizer is a bijection,
# so such ids are found by running it backwards): 150,000 classes and 750,000 instances of
# the last. The class table probed the whole cluster per instance (`histo` a minute on a
# 46 MB file); its hash now takes the per-process state too.
python3 - "$tmp/ids.hprof" <<'PY'
import struct, sys
M = (1 << 64) - 1
C1, C2 = 0xFF51AFD7ED558CCD, 0xC4CEB9FE1A85EC53
I1, I2 = pow(C1, -1, 1 << 64), pow(C2, -1, 1 << 64)

def unmix(y):  # hash_mix64 backwards: x ^= x >> 33 undoes itself, the products by inverses
    y ^= y >> 33
    y = (y * I2) & M
    y ^= y >> 33
    y = (y * I1) & M
    y ^= y >> 33
    return y

def rec(tag, body):
    return struct.pack(">BII", tag, 0, len(body)) + body

nc, ni = 150000, 750000
ids = [unmix((k << 32) | 0x1234567) for k in range(1, nc + 1)]
out = [b"JAVA PROFILE 1.0.2\0" + struct.pack(">IQ", 8, 0),
       rec(0x01, struct.pack(">Q", 1) + b"Flood")]
out += [rec(0x02, struct.pack(">IQIQ", i + 1, cid, 0, 1)) for i, cid in enumerate(ids)]
seg = [struct.pack(">BQIQQQQQQIHHH", 0x20, cid, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
       for cid in ids]
seg += [struct.pack(">BQIQI", 0x21, 0x10 + 8 * i, 0, ids[-1], 0) for i in range(ni)]
out += [rec(0x1C, b"".join(seg)), rec(0x2C, b"")]
open(sys.argv[1], "wb").write(b"".join(out))
PY
for verb in histo info; do
    rc=0
    timeout 20 "$LEAKRAY" "$verb" --no-progress "$tmp/ids.hprof" >"$tmp/ids.txt" \
        2>"$tmp/ids.err" || rc=$?
    [ "$rc" = 0 ] ||
        { echo "FAIL: $verb: exit $rc (124: over 20 s): $(head -3 "$tmp/ids.err")"; exit 1; }
done
echo "hash_flood: ok"
