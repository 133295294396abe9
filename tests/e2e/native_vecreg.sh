#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# native_vecreg.sh: a stopped thread's SSE registers are roots (tests/programs/native/
# vecreg.c: a worker holds the only pointer to a 320-byte block in xmm3 while it spins when
# main exits): the capture read the general registers only, and the block was a leak. With
# xmm3 cleared (the control) the block is a leak: 320 bytes in 1 block.
set -euo pipefail
. "$(dirname "$0")/native_lib.bash"
nat_init native_vecreg
[ "$(uname -m)" = x86_64 ] || nat_skip "SSE registers: x86_64 only"
B=$NAT_TMP/bin
mkdir -p "$B"
gcc -O1 -g -fno-omit-frame-pointer -pthread -o "$B/vecreg" "$NAT_PROGS/vecreg.c" ||
    nat_fail "gcc could not build vecreg.c"
for mode in keep clear; do
    rc=0
    "$LEAKRAY" native run --json --no-timing -- "$B/vecreg" "$mode" >"$NAT_TMP/$mode.json" \
        2>"$NAT_TMP/$mode.err" || rc=$?
    [ "$rc" = 0 ] || nat_fail "$mode: exit $rc: $(cat "$NAT_TMP/$mode.err")"
done
python3 - "$NAT_TMP/keep.json" "$NAT_TMP/clear.json" <<'PY' || nat_fail "vector registers"
import json, sys
keep, clear = (json.load(open(p)) for p in sys.argv[1:3])
assert keep['capture']['ok'] if 'ok' in keep['capture'] else True, keep['capture']
assert (keep['direct']['bytes'], keep['direct']['blocks']) == (0, 0), keep['direct']
assert (clear['direct']['bytes'], clear['direct']['blocks']) == (320, 1), clear['direct']
PY
echo "native_vecreg: ok"
