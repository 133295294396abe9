#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# native_noptrace.sh: a scan that cannot stop the program's threads does not call what they
# hold leaked. tests/programs/native/noptrace.c refuses ptrace with a seccomp filter (as a
# service under systemd's SystemCallFilter=~@debug): four workers hold 400 blocks in their
# locals, main loses 5 blocks of 72 bytes. The at-exit scan says its capture failed
# (ptrace: permission denied) and reports the 5 blocks, 360 bytes: the stacks of threads it
# could not stop are read whole. (Before, the 400 blocks were direct leaks too.)
set -euo pipefail
. "$(dirname "$0")/native_lib.bash"
nat_init native_noptrace
[ "$(uname -m)" = x86_64 ] || nat_skip "the seccomp filter names x86_64's ptrace"
B=$NAT_TMP/bin
mkdir -p "$B"
gcc -O1 -g -fno-omit-frame-pointer -pthread -o "$B/noptrace" "$NAT_PROGS/noptrace.c" ||
    nat_fail "gcc could not build noptrace.c"
rc=0
"$LEAKRAY" native run --json --no-timing -- "$B/noptrace" > "$NAT_TMP/o.json" \
    2> "$NAT_TMP/o.err" || rc=$?
[ "$rc" = 0 ] || nat_fail "exit $rc: $(cat "$NAT_TMP/o.err")"
python3 - "$NAT_TMP/o.json" <<'PY' || nat_fail "a failed capture and the workers' blocks"
import json, sys
d = json.load(open(sys.argv[1]))
c = d["capture"]
assert c["ok"] is False and "ptrace" in c.get("error", ""), c
assert (d["direct"]["blocks"], d["direct"]["bytes"]) == (5, 360), d["direct"]
PY
echo "native_noptrace: ok"
