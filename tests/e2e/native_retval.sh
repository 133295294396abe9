#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# native_retval.sh: a thread's result waits in its descriptor until pthread_join hands it over
# (tests/programs/native/retval.c: one worker returns a 123-byte block, one gives a 77-byte
# block to pthread_exit; main joins them later and frees both). The descriptor lies in the
# ended thread's stack mapping, which a scan skips, so a live scan between the threads' end
# and the joins reported both results as direct leaks. Now they are reachable; the threads
# themselves are still "ended, never joined" at that moment; the exit scan finds nothing.
set -euo pipefail
. "$(dirname "$0")/native_lib.bash"
nat_init native_retval
B=$NAT_TMP/bin
mkdir -p "$B"
gcc -O0 -g -fno-omit-frame-pointer -pthread -o "$B/retval" "$NAT_PROGS/retval.c" ||
    nat_fail "gcc could not build retval.c"
"$LEAKRAY" native run --json --no-timing -- "$B/retval" "$NAT_TMP/pid" "$NAT_TMP/stop" \
    >"$NAT_TMP/exit.json" 2>"$NAT_TMP/run.err" &
RUN=$!
for _ in $(seq 200); do [ -s "$NAT_TMP/pid" ] && break; sleep 0.05; done
[ -s "$NAT_TMP/pid" ] || { kill $RUN; nat_fail "retval never wrote its pid"; }
PID=$(cat "$NAT_TMP/pid")
sleep 0.3 # both workers have ended by now
rc=0
"$LEAKRAY" native check "$PID" --json --no-timing >"$NAT_TMP/live.json" || rc=$?
touch "$NAT_TMP/stop"
wait $RUN || nat_fail "native run failed: $(cat "$NAT_TMP/run.err")"
[ "$rc" = 0 ] || nat_fail "native check: exit $rc"
python3 - "$NAT_TMP/live.json" "$NAT_TMP/exit.json" <<'PY' || nat_fail "thread results"
import json, sys
live, end = (json.load(open(p)) for p in sys.argv[1:3])
assert (live['direct']['bytes'], live['direct']['blocks']) == (0, 0), live['direct']
assert (end['direct']['bytes'], end['direct']['blocks']) == (0, 0), end['direct']
assert not end['threads'], end['threads']
PY
echo "native_retval: ok"
