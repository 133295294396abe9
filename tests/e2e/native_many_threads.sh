#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# native_many_threads.sh: a scan of a process with 1,100 threads, each holding a block on its
# own stack (tests/programs/native/manythreads.c). Every thread is stopped and read: past
# 1,024 the others were neither stopped nor counted, their blocks reported as leaks under
# "all stopped and captured" (78 false leaks here). Past the limit (4,096) the scan says how
# many threads it could not capture.
set -euo pipefail
. "$(dirname "$0")/native_lib.bash"
nat_init native_many_threads
gcc -O0 -g -fno-omit-frame-pointer -pthread -I"$NAT_PROGS" -o "$NAT_TMP/manythreads" \
    "$NAT_PROGS/manythreads.c" || nat_fail "gcc could not build manythreads.c"
(cd "$NAT_TMP" && timeout 120 "$LEAKRAY" native run --json --no-timing -- ./manythreads 1100) \
    >"$NAT_TMP/r.json" 2>"$NAT_TMP/err" || nat_fail "native run: $(cat "$NAT_TMP/err")"
python3 - "$NAT_TMP/r.json" <<'PY' || nat_fail "1,100 threads"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["capture"]["ok"], d["capture"]
assert d["capture"]["threads"] >= 1101, d["capture"]
assert (d["direct"]["blocks"], d["direct"]["bytes"]) == (1, 77), d["direct"]
assert d["indirect"]["blocks"] == 0, d["indirect"]
PY
echo "native_many_threads: ok"
