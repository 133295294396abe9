#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# native_own_signal.sh: a program that puts its own handler on the scan signal (a daemon's
# SIGUSR2 reload, tests/programs/native/ownsig.c) takes the monitor's place there:
# `native check --signal` sent the signal anyway, said "sent signal 12", exit 0, and the
# program's reload ran with no scan. It must refuse (exit 2, naming the handler) and send
# nothing; `native check` by the socket still scans.
set -euo pipefail
. "$(dirname "$0")/native_lib.bash"
nat_init native_own_signal
B=$NAT_TMP/bin
mkdir -p "$B"
gcc -O0 -g -o "$B/ownsig" "$NAT_PROGS/ownsig.c" || nat_fail "gcc could not build ownsig.c"
"$LEAKRAY" native run --no-timing -- "$B/ownsig" "$NAT_TMP/pid" "$NAT_TMP/stop" \
    >"$NAT_TMP/run.out" 2>"$NAT_TMP/run.err" &
RUN=$!
for _ in $(seq 400); do [ -s "$NAT_TMP/pid" ] && break; sleep 0.05; done
[ -s "$NAT_TMP/pid" ] || { kill $RUN; nat_fail "ownsig never wrote its pid"; }
PID=$(cat "$NAT_TMP/pid")
rc=0
"$LEAKRAY" native check --signal "$PID" >"$NAT_TMP/sig.out" 2>"$NAT_TMP/sig.err" || rc=$?
rc2=0
"$LEAKRAY" native check "$PID" --json --no-timing >"$NAT_TMP/check.json" 2>&1 || rc2=$?
touch "$NAT_TMP/stop"
wait $RUN || true
[ $rc = 2 ] || nat_fail "check --signal exited $rc, not 2: $(cat "$NAT_TMP/sig.out" "$NAT_TMP/sig.err")"
grep -q "its own handler on signal 12.*no signal sent" "$NAT_TMP/sig.err" ||
    nat_fail "message: $(cat "$NAT_TMP/sig.err")"
grep -q '^reloads 0$' "$NAT_TMP/run.out" ||
    nat_fail "the program's handler ran: $(head -3 "$NAT_TMP/run.out")"
[ $rc2 = 0 ] || nat_fail "check by the socket exited $rc2: $(head -5 "$NAT_TMP/check.json")"
echo "native_own_signal: ok"
