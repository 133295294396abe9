#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# native_nofds.sh: a program with no file descriptor left is still scanned. tests/programs/
# native/nofds.c loses 9 blocks of 70 bytes, then opens /dev/null until EMFILE (ulimit -n
# 64) and exits: the at-exit scan's copy closes the program's descriptors before it writes
# its report, so the report is written and names the 9 blocks, 630 bytes. (Before, the copy
# could not create its file: no report, and `native run` blamed _exit or exec.)
set -euo pipefail
. "$(dirname "$0")/native_lib.bash"
nat_init native_nofds
B=$NAT_TMP/bin
mkdir -p "$B"
gcc -O1 -g -fno-omit-frame-pointer -o "$B/nofds" "$NAT_PROGS/nofds.c" ||
    nat_fail "gcc could not build nofds.c"
rc=0
(ulimit -n 64 && exec "$LEAKRAY" native run --json --no-timing -- "$B/nofds") \
    > "$NAT_TMP/o.json" 2> "$NAT_TMP/o.err" || rc=$?
[ "$rc" = 0 ] || nat_fail "exit $rc: $(cat "$NAT_TMP/o.err")"
python3 - "$NAT_TMP/o.json" <<'PY' || nat_fail "the scan of a program without descriptors"
import json, sys
d = json.load(open(sys.argv[1]))
assert (d["direct"]["blocks"], d["direct"]["bytes"]) == (9, 630), d["direct"]
PY
echo "native_nofds: ok"
