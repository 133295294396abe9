#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# native_redzone.sh: a stopped thread's red zone (the 128 bytes below its stack pointer, which
# the x86-64 ABI leaves to a leaf function) is a root (tests/programs/native/redzone.c: a
# worker keeps the only pointer to a 208-byte block 64 bytes below its stack pointer while it
# spins when main exits): the scan read from the stack pointer up, and the block was a leak,
# as LeakSanitizer reports it (valgrind does not). With the slot cleared (the control) the
# block is a leak: 208 bytes in 1 block.
set -euo pipefail
. "$(dirname "$0")/native_lib.bash"
nat_init native_redzone
[ "$(uname -m)" = x86_64 ] || nat_skip "the red zone: x86_64 only"
B=$NAT_TMP/bin
mkdir -p "$B"
gcc -O1 -g -fno-omit-frame-pointer -pthread -o "$B/redzone" "$NAT_PROGS/redzone.c" ||
    nat_fail "gcc could not build redzone.c"
for mode in keep clear; do
    rc=0
    "$LEAKRAY" native run --json --no-timing -- "$B/redzone" "$mode" >"$NAT_TMP/$mode.json" \
        2>"$NAT_TMP/$mode.err" || rc=$?
    [ "$rc" = 0 ] || nat_fail "$mode: exit $rc: $(cat "$NAT_TMP/$mode.err")"
done
python3 - "$NAT_TMP/keep.json" "$NAT_TMP/clear.json" <<'PY' || nat_fail "red zone"
import json, sys
keep, clear = (json.load(open(p)) for p in sys.argv[1:3])
assert keep['capture']['ok'] if 'ok' in keep['capture'] else True, keep['capture']
assert (keep['direct']['bytes'], keep['direct']['blocks']) == (0, 0), keep['direct']
assert (clear['direct']['bytes'], clear['direct']['blocks']) == (208, 1), clear['direct']
PY
echo "native_redzone: ok"
