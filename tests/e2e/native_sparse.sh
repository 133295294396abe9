#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# native_sparse.sh: a large reservation the program never touched is not read by a scan
# (tests/programs/native/sparse.c: 16 GiB MAP_NORESERVE, two pages used). Every scan read it
# whole (about 40 s here, the program's exit held that long); the pages that were never
# written are skipped (/proc/self/pagemap), and the answers stay the same: the block held
# only from the reservation, 9 GiB in, is no leak; the dropped 1,212 bytes are, and so are 80
# over-aligned 1 MiB blocks whose headers lie past an untouched gap in their chunk (the first
# cut of the skipping lost 79 of them). Then the same over a sparse file and a memfd mapped
# shared (below).
set -euo pipefail
. "$(dirname "$0")/native_lib.bash"
nat_init native_sparse
B=$NAT_TMP/bin
mkdir -p "$B"
gcc -O0 -g -fno-omit-frame-pointer -o "$B/sparse" "$NAT_PROGS/sparse.c" ||
    nat_fail "gcc could not build sparse.c"
rc=0
"$LEAKRAY" native run --json --timing -- "$B/sparse" >"$NAT_TMP/run.json" \
    2>"$NAT_TMP/run.err" || rc=$?
[ "$rc" = 0 ] || nat_fail "exit $rc: $(cat "$NAT_TMP/run.err")"
python3 - "$NAT_TMP/run.json" <<'PY' || nat_fail "sparse reservation"
import json, sys
d = json.load(open(sys.argv[1]))
assert (d['direct']['bytes'], d['direct']['blocks']) == (83887292, 81), d['direct']
assert (d['indirect']['bytes'], d['indirect']['blocks']) == (0, 0), d['indirect']
# reading 16 GiB of untouched pages took ~40 s; skipping them, well under a second
assert d["timing"]["scan_ms"] < 5000, d["timing"]
PY

# The same over shared mappings: a 16 GiB sparse file mapped MAP_SHARED (LMDB-style) and a
# 16 GiB memfd, each holding one block's only pointer. Fork copies no page table of them:
# read whole, the two took over a minute a scan; the file's holes are skipped now.
rc=0
"$LEAKRAY" native run --json --timing -- "$B/sparse" "$NAT_TMP/db.mdb" >"$NAT_TMP/shared.json" \
    2>"$NAT_TMP/shared.err" || rc=$?
rm -f "$NAT_TMP/db.mdb"
[ "$rc" = 0 ] || nat_fail "shared: exit $rc: $(cat "$NAT_TMP/shared.err")"
python3 - "$NAT_TMP/shared.json" <<'PY' || nat_fail "sparse shared mappings"
import json, sys
d = json.load(open(sys.argv[1]))
assert (d['direct']['bytes'], d['direct']['blocks']) == (83887292, 81), d['direct']
assert (d['indirect']['bytes'], d['indirect']['blocks']) == (0, 0), d['indirect']
assert d["timing"]["scan_ms"] < 5000, d["timing"]
PY
echo "native_sparse: ok"
