#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# native_vecreg.sh: what a stopped thread holds outside its stack's live words is a root:
# - its SSE registers (tests/programs/native/vecreg.c: a worker holds the only pointer to a
#   320-byte block in xmm3 while it spins when main exits): the capture read the general
#   registers only, and the block was a leak;
# - its red zone, the 128 bytes below its stack pointer the x86-64 ABI leaves to a leaf
#   function (redzone.c: the only pointer to a 208-byte block 64 bytes below it): the scan
#   read from the stack pointer up, and the block was a leak, as LeakSanitizer reports it
#   (valgrind does not).
# With the register or the slot cleared (the controls) each block is a leak, 1 block.
set -euo pipefail
. "$(dirname "$0")/native_lib.bash"
nat_init native_vecreg
[ "$(uname -m)" = x86_64 ] || nat_skip "SSE registers and the red zone: x86_64 only"
B=$NAT_TMP/bin
mkdir -p "$B"
for case in vecreg:320 redzone:208; do
    prog=${case%:*}
    size=${case#*:}
    gcc -O1 -g -fno-omit-frame-pointer -pthread -o "$B/$prog" "$NAT_PROGS/$prog.c" ||
        nat_fail "gcc could not build $prog.c"
    for mode in keep clear; do
        rc=0
        "$LEAKRAY" native run --json --no-timing -- "$B/$prog" "$mode" \
            >"$NAT_TMP/$prog-$mode.json" 2>"$NAT_TMP/$prog-$mode.err" || rc=$?
        [ "$rc" = 0 ] || nat_fail "$prog $mode: exit $rc: $(cat "$NAT_TMP/$prog-$mode.err")"
    done
    python3 - "$NAT_TMP/$prog-keep.json" "$NAT_TMP/$prog-clear.json" "$size" <<'PY' ||
import json, sys
keep, clear = (json.load(open(p)) for p in sys.argv[1:3])
size = int(sys.argv[3])
assert keep['capture']['ok'] if 'ok' in keep['capture'] else True, keep['capture']
assert (keep['direct']['bytes'], keep['direct']['blocks']) == (0, 0), keep['direct']
assert (clear['direct']['bytes'], clear['direct']['blocks']) == (size, 1), clear['direct']
PY
        nat_fail "$prog: the held block"
done
echo "native_vecreg: ok"
