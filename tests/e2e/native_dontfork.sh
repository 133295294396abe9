#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# native_dontfork.sh: memory the program marked MADV_DONTFORK (tests/programs/native/
# dontfork.c; V8 marks its heap pages so, which made a clean `node` report 441 leaked blocks)
# is not in a forked copy, and MADV_WIPEONFORK memory is zero there, so every block only they
# point to read as leaked. A scan now forks while such mappings are briefly ordinary (the
# program's threads stopped), 5,001 do-not-fork mappings among them (4,096 were, and a 1.7 GB
# Node heap still read 21,073 blocks leaked), and puts the flags back: a scan during the run
# and the exit's scan each find only the dropped 1,212-byte block, and the program still sees
# its mappings flagged after the scan.
set -euo pipefail
. "$(dirname "$0")/native_lib.bash"
nat_init native_dontfork
B=$NAT_TMP/bin
mkdir -p "$B"
gcc -O0 -g -fno-omit-frame-pointer -o "$B/dontfork" "$NAT_PROGS/dontfork.c" ||
    nat_fail "gcc could not build dontfork.c"
"$LEAKRAY" native run --json --no-timing -- "$B/dontfork" "$NAT_TMP/pid" "$NAT_TMP/go" \
    >"$NAT_TMP/exit.json" 2>"$NAT_TMP/run.err" &
RUN=$!
for _ in $(seq 200); do [ -s "$NAT_TMP/pid" ] && break; sleep 0.05; done
[ -s "$NAT_TMP/pid" ] || { kill $RUN; nat_fail "dontfork never wrote its pid"; }
PID=$(cat "$NAT_TMP/pid")
"$LEAKRAY" native check "$PID" --json --no-timing >"$NAT_TMP/check.json" ||
    { touch "$NAT_TMP/go"; nat_fail "native check failed"; }
touch "$NAT_TMP/go"
rc=0
wait $RUN || rc=$?
[ "$rc" = 0 ] || nat_fail "native run exited $rc: $(cat "$NAT_TMP/run.err")"
for f in check exit; do
    python3 - "$NAT_TMP/$f.json" "$f" <<'PY' || nat_fail "$f scan"
import json, sys
d = json.load(open(sys.argv[1]))
assert (d['direct']['bytes'], d['direct']['blocks']) == (1212, 1), (sys.argv[2], d['direct'])
assert (d['indirect']['bytes'], d['indirect']['blocks']) == (0, 0), (sys.argv[2], d['indirect'])
print("ok:", sys.argv[2], "scan: 1 direct leak of 1,212 bytes, the do-not-fork mapping's blocks held")
PY
done
echo "native_dontfork: ok"
