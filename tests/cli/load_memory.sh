#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# load_memory.sh: loading an HPROF dump keeps no object id per node. A HotSpot-shaped dump of
# 1,000,000 instances (8-byte ids, classes among them by id, each instance referring to the
# one before) is written here; `info` resolves every reference (edges counted) and its peak
# allocation stays under 11 bytes per object: the record offset (4), class (2), kind (1) and
# the id index. An id kept per node while loading (8 bytes) put it at 15. Checked twice:
# objects in address order (class nodes merged in by id) and in three address regions written
# out of order (the index's run table). Under AddressSanitizer nothing is counted: skipped.
set -euo pipefail
. "$(dirname "$0")/lib/common.bash"
cli_init load-memory
if [[ $(ldd "$LEAKRAY" 2>/dev/null) == *libasan* ]]; then
    echo "load_memory: skipped (allocations not counted under AddressSanitizer)"
    exit 0
fi
N=1000000
for order in sorted regions; do
    python3 - "$T/$order.hprof" $N $order <<'PY'
import struct, sys
out, n, order = sys.argv[1], int(sys.argv[2]), sys.argv[3]
def rec(tag, body):
    return struct.pack(">BII", tag, 0, len(body)) + body
head = b"JAVA PROFILE 1.0.2\0" + struct.pack(">IQ", 8, 1700000000000)
parts = [head, rec(0x01, struct.pack(">Q", 1) + b"next")]
base = 0x7f0000000
ids = [base + 24 * k for k in range(n)]
if order == "regions":  # high, low, middle
    t = n // 3
    ids = ids[2 * t:] + ids[:t] + ids[t:2 * t]
cids = [base - 4096, base + 24 * 1000 + 8, base + 24 * (n // 2) + 16, base + 24 * n + 64]
for k, c in enumerate(cids):
    parts.append(rec(0x01, struct.pack(">Q", 100 + k) + b"C%d" % k))
    parts.append(rec(0x02, struct.pack(">IQIQ", k + 1, c, 0, 100 + k)))
seg = bytearray()
for c in cids:
    seg += struct.pack(">BQIQ", 0x20, c, 0, 0) + b"\0" * 40  # super, loader..reserved
    seg += struct.pack(">IHHH", 8, 0, 0, 1) + struct.pack(">QB", 1, 2)
    seg += struct.pack(">BQ", 0x05, c)  # ROOT_STICKY_CLASS
seg += struct.pack(">BQ", 0xff, ids[0])  # ROOT_UNKNOWN
inst = struct.Struct(">BQIQIQ")
for k in range(n):
    if len(seg) > (1 << 22):
        parts.append(rec(0x1c, bytes(seg)))
        seg = bytearray()
    seg += inst.pack(0x21, ids[k], 0, cids[k % 4], 8, ids[k - 1] if k else 0)
parts.append(rec(0x1c, bytes(seg)))
parts.append(rec(0x2c, b""))
open(out, "wb").write(b"".join(parts))
PY
    run info --timing --no-progress "$T/$order.hprof"
    expect_rc 0
    expect_out "^objects: +1,000,004$"
    expect_out "^edges: +999,999$"
    expect_out "^diagnostics: +none$"
    peak=$(sed -n 's/^memory: peak \([0-9.]*\) MB allocated.*/\1/p' "$T/err")
    [ -n "$peak" ] || fail "$order: no peak in --timing's report"
    python3 -c "import sys; sys.exit(0 if float('$peak') * 1e6 / $N < 11 else 1)" ||
        fail "$order: peak $peak MB allocated: over 11 bytes per object"
    echo "load_memory: $order: peak $peak MB for $N objects"
done
echo "load_memory: ok"
