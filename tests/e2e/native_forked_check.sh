#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# native_forked_check.sh: `native check` of a pre-fork server's running worker
# (tests/programs/native/prefork.c). A forked child has the monitor's library but not its
# thread (threads do not cross fork), so it cannot be checked while it runs; the message
# said it was "not started with libleakray_native.so?", which it was. Now it names the
# monitored parent and the way that works (--children: the worker's scan at exit), and the
# worker's scan at exit under --children still reports its 70 + 50 bytes. A worker ended by
# SIGTERM wrote no report, and nothing said so: now `run` names it. The worker keeps none of
# the monitor's descriptors (its listening socket took checks no thread answered).
set -euo pipefail
. "$(dirname "$0")/native_lib.bash"
nat_init native_forked_check
gcc -O0 -g -fno-omit-frame-pointer -I"$NAT_PROGS" -o "$NAT_TMP/prefork" \
    "$NAT_PROGS/prefork.c" || nat_fail "gcc could not build prefork.c"
"$LEAKRAY" native run --children --no-timing -- "$NAT_TMP/prefork" "$NAT_TMP/pid" \
    "$NAT_TMP/stop" >"$NAT_TMP/run.out" 2>&1 &
RUN=$!
for _ in $(seq 400); do [ -s "$NAT_TMP/pid" ] && break; sleep 0.05; done
[ -s "$NAT_TMP/pid" ] || { kill $RUN; nat_fail "the worker never wrote its pid"; }
read -r W M <"$NAT_TMP/pid"
# the worker keeps none of the monitor's descriptors: its copy of the listening socket took
# checks meant for the master, answered by no thread (one waited 600 s)
socks=$(find "/proc/$W/fd" -lname 'socket:*' 2>/dev/null | wc -l)
rc=0
"$LEAKRAY" native check "$W" >"$NAT_TMP/check.out" 2>"$NAT_TMP/check.err" || rc=$?
rc2=0
"$LEAKRAY" native check --signal "$W" >/dev/null 2>"$NAT_TMP/signal.err" || rc2=$?
touch "$NAT_TMP/stop"
wait $RUN || nat_fail "native run exited $?: $(tail -3 "$NAT_TMP/run.out")"
[ $rc = 2 ] && [ $rc2 = 2 ] || nat_fail "check of the worker: exit $rc, --signal $rc2, not 2"
[ "$socks" = 0 ] || nat_fail "the worker holds $socks socket(s) it inherited from the monitor"
for f in check signal; do
    grep -q "forked child of the monitored process $M" "$NAT_TMP/$f.err" &&
        ! grep -q "not started with" "$NAT_TMP/$f.err" ||
        nat_fail "$f: $(cat "$NAT_TMP/$f.err")"
done
grep -q "SUMMARY: 120 byte(s) leaked in 2 block(s)" "$NAT_TMP/run.out" ||
    nat_fail "the worker's scan at exit: $(grep SUMMARY "$NAT_TMP/run.out")"
grep -q "SUMMARY: 50 byte(s) leaked in 1 block(s)" "$NAT_TMP/run.out" ||
    nat_fail "the master's scan at exit: $(grep SUMMARY "$NAT_TMP/run.out")"
grep -q "wrote no scan report" "$NAT_TMP/run.out" &&
    nat_fail "a notice of a missing scan, where each process wrote one: $(grep leakray: \
        "$NAT_TMP/run.out")"

# A worker ended by SIGTERM, as masters recycle them, writes no report: the run says so.
rm -f "$NAT_TMP/pid" "$NAT_TMP/stop"
"$LEAKRAY" native run --children --no-timing -- "$NAT_TMP/prefork" "$NAT_TMP/pid" \
    "$NAT_TMP/stop" >"$NAT_TMP/term.out" 2>&1 &
RUN=$!
for _ in $(seq 400); do [ -s "$NAT_TMP/pid" ] && break; sleep 0.05; done
[ -s "$NAT_TMP/pid" ] || { kill $RUN; nat_fail "the worker never wrote its pid (2)"; }
read -r W M <"$NAT_TMP/pid"
kill -TERM "$W"
wait $RUN || nat_fail "native run (SIGTERM) exited $?: $(tail -3 "$NAT_TMP/term.out")"
grep -q "worker ended by signal 15" "$NAT_TMP/term.out" || nat_fail "the worker was not ended"
grep -q "1 forked child process(es) wrote no scan report.*: pid $W\$" "$NAT_TMP/term.out" ||
    nat_fail "no notice of the worker's missing scan: $(grep leakray: "$NAT_TMP/term.out")"
echo "native_forked_check: ok"
