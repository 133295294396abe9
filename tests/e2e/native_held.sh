#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# native_held.sh: `native check` of a program whose main thread is in a tracing stop
# (tests/programs/native/held.c). Two checks at one moment failed one time in five or ten
# with "process N is stopped ... (kill -CONT N)": the stop was the other check's scan, the
# monitor's own tracer (a task of the process) holding the threads. A tracer that is a task
# of the process now lets the check go on (the monitor serves one scan after the other); a
# foreign tracer (a debugger) is named, with no kill -CONT advice; a SIGSTOP keeps it.
set -euo pipefail
. "$(dirname "$0")/native_lib.bash"
nat_init native_held
gcc -O0 -g -fno-omit-frame-pointer -I"$NAT_PROGS" -o "$NAT_TMP/held" "$NAT_PROGS/held.c" ||
    nat_fail "gcc could not build held.c"

# start MODE: runs held under the monitor; sets RUN, PID, CHILD once its main thread is
# held (MODE own) or running (any other MODE).
start() {
    rm -f "$NAT_TMP/pid" "$NAT_TMP/stop"
    "$LEAKRAY" native run --no-timing -- "$NAT_TMP/held" "$NAT_TMP/pid" "$NAT_TMP/stop" "$1" \
        >"$NAT_TMP/run-$1.out" 2>&1 &
    RUN=$!
    for _ in $(seq 400); do [ -s "$NAT_TMP/pid" ] && break; sleep 0.05; done
    [ -s "$NAT_TMP/pid" ] || { kill $RUN; nat_fail "held ($1) never wrote its pid"; }
    read -r PID CHILD <"$NAT_TMP/pid"
}

# stopped_state: waits until the main thread of PID is in state $1 (t, T).
stopped_state() {
    for _ in $(seq 400); do
        [ "$(sed 's/.*) //' "/proc/$PID/stat" | cut -c1)" = "$1" ] && return 0
        sleep 0.05
    done
    nat_fail "process $PID never reached state $1"
}

finish() {
    touch "$NAT_TMP/stop"
    wait $RUN || nat_fail "native run ($1) exited $?: $(tail -3 "$NAT_TMP/run-$1.out")"
}

# The program's own task holds it, as the monitor's tracer does during another check's scan.
start own
stopped_state t
rc=0
"$LEAKRAY" native check "$PID" --no-timing >"$NAT_TMP/own.out" 2>"$NAT_TMP/own.err" || rc=$?
finish own
grep -q "is stopped\|kill -CONT" "$NAT_TMP/own.err" &&
    nat_fail "a stop by the process's own tracer taken for a job-control stop: \
$(cat "$NAT_TMP/own.err")"
[ $rc = 0 ] || nat_fail "check with the process's own tracer: exit $rc: $(cat "$NAT_TMP/own.err")"
grep -q "scan on socket" "$NAT_TMP/own.out" || nat_fail "no scan: $(head -3 "$NAT_TMP/own.out")"

# A debugger holds it: the check names the tracer and gives no kill -CONT advice.
start foreign
python3 - "$PID" "$NAT_TMP/seized" <<'PY' &
import ctypes, os, sys, time
libc = ctypes.CDLL(None, use_errno=True)
pid, flag = int(sys.argv[1]), sys.argv[2]
if libc.ptrace(0x4206, pid, 0, 0) != 0 or libc.ptrace(0x4207, pid, 0, 0) != 0:
    sys.exit(1)  # PTRACE_SEIZE, PTRACE_INTERRUPT
os.waitpid(pid, 0x40000000)  # __WALL
open(flag, "w").close()
time.sleep(60)
PY
TRACER=$!
for _ in $(seq 400); do [ -e "$NAT_TMP/seized" ] && break; sleep 0.05; done
[ -e "$NAT_TMP/seized" ] || { kill $TRACER; finish foreign; nat_fail "could not ptrace held"; }
rc=0
"$LEAKRAY" native check "$PID" --no-timing >"$NAT_TMP/foreign.out" 2>"$NAT_TMP/foreign.err" ||
    rc=$?
kill $TRACER
wait $TRACER 2>/dev/null || true
[ $rc = 4 ] || { finish foreign; nat_fail "check under a debugger: exit $rc, not 4"; }
grep -q "held by the tracer $TRACER" "$NAT_TMP/foreign.err" && ! grep -q "kill -CONT" \
    "$NAT_TMP/foreign.err" || { finish foreign; nat_fail "debugger: $(cat "$NAT_TMP/foreign.err")"; }

# A job-control stop keeps its advice.
kill -STOP "$PID"
stopped_state T
rc=0
"$LEAKRAY" native check "$PID" --no-timing >/dev/null 2>"$NAT_TMP/sigstop.err" || rc=$?
kill -CONT "$PID"
finish foreign
[ $rc = 4 ] && grep -q "kill -CONT $PID" "$NAT_TMP/sigstop.err" ||
    nat_fail "SIGSTOP: exit $rc: $(cat "$NAT_TMP/sigstop.err")"
echo "native_held: ok"
