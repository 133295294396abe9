#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# native_guard.sh: what a scan must leave alone in the program it scans, and who may ask for
# one (tests/programs/native/guarded.c).
# - A program whose threads map and unmap memory without pause survives 30 scans in a row and
#   exits 0 (the look at glibc's heaps before a scan read an unmapped mapping: SIGSEGV).
# - A program that made itself non-dumpable is non-dumpable again after a scan.
# - Only the program's own user (or root) gets a scan: another user is told "permission
#   denied" (the socket is abstract: no file mode keeps anyone out); a client that connects and
#   says nothing holds the monitor about a second, not until `check` gives up.
# - Reports are the program's user's alone: the --keep folder 0700, each report 0600.
# - A program killed before its at-exit scan: `native run` says so and exits 4, not 0 with the
#   earlier scan as if it were the last word.
# - A program that becomes another user cannot write into `native run`'s folder: the message
#   names the file and the reason.
# - `native run` exits with the program's own status when it is not 0 (1 under --fail-on-leak
#   with leaks); a link planted at a report's temporary name is removed, not written through.
# - A daemon that closes every descriptor it inherited keeps its own pipe's bytes (the
#   monitor read them), and the monitor makes its socket anew (checks still scan).
# - A program ended by SIGTERM (sent to its process group, or to leakray, which passes it
#   on) is scanned first: its two leaked blocks are reported, and `native run` exits 143.
set -euo pipefail
. "$(dirname "$0")/native_lib.bash"
nat_init native_guard
B=$NAT_TMP/bin
mkdir -p "$B"
gcc -O0 -g -fno-omit-frame-pointer -pthread -o "$B/guarded" "$NAT_PROGS/guarded.c" ||
    nat_fail "gcc could not build guarded.c"
T=$NAT_TMP

# Mappings unmapped under the scan.
"$LEAKRAY" native run --no-timing --keep "$T/keep" -- "$B/guarded" churn "$T/churn.pid" 20 \
    >"$T/churn.out" 2>&1 &
RUN=$!
for _ in $(seq 250); do [ -s "$T/churn.pid" ] && break; sleep 0.02; done
[ -s "$T/churn.pid" ] || nat_fail "churn never started"
for i in $(seq 30); do
    "$LEAKRAY" native check "$(cat "$T/churn.pid")" --json --no-timing >"$T/churn$i.json" ||
        nat_fail "check $i of the churning program failed: $(cat "$T/churn.out")"
done
kill -TERM "$(cat "$T/churn.pid")" 2>/dev/null || true
wait "$RUN" || true
grep -q "signal 11\|status: 139" "$T/churn.out" && nat_fail "the churning program faulted"
python3 - "$T/churn30.json" <<'PY' || nat_fail "the 30th scan of churn"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["direct"] == {"blocks": 3, "bytes": 300}, d["direct"]
PY
[ "$(stat -c %a "$T/keep")" = 700 ] || nat_fail "--keep folder is $(stat -c %a "$T/keep")"
for f in "$T"/keep/scan.*.lrn; do
    [ "$(stat -c %a "$f")" = 600 ] || nat_fail "$f is mode $(stat -c %a "$f")"
done

# Dumpable is put back.
"$LEAKRAY" native run --no-timing -- "$B/guarded" nodump "$T/nd.pid" "$T/nd.stop" \
    >"$T/nd.out" 2>&1 &
RUN=$!
for _ in $(seq 250); do [ -s "$T/nd.pid" ] && break; sleep 0.02; done
ND=$(cat "$T/nd.pid")
"$LEAKRAY" native check "$ND" >/dev/null || nat_fail "check of the non-dumpable program"

# Who may ask.
if [ "$(id -u)" = 0 ] && command -v runuser >/dev/null && runuser -u nobody -- true 2>/dev/null; then
    set +e
    runuser -u nobody -- "$LEAKRAY" native check "$ND" >"$T/other.out" 2>"$T/other.err"
    rc=$?
    set -e
    [ $rc = 4 ] && grep -q "permission denied" "$T/other.err" ||
        nat_fail "another user's check: rc $rc, $(cat "$T/other.err")"
    [ -s "$T/other.out" ] && nat_fail "another user got a report"
fi
python3 - "$ND" <<'PY' &
import socket, sys, time
s = socket.socket(socket.AF_UNIX)
s.connect("\0leakray-native." + sys.argv[1])
time.sleep(8)
PY
IDLE=$!
sleep 0.5
s0=$(date +%s%N)
"$LEAKRAY" native check "$ND" >/dev/null || nat_fail "check behind an idle client"
ms=$((($(date +%s%N) - s0) / 1000000))
[ $ms -lt 4000 ] || nat_fail "an idle client held the monitor for $ms ms"
kill "$IDLE" 2>/dev/null || true
touch "$T/nd.stop"
wait "$RUN" || true
grep -q "^dumpable=0$" "$T/nd.out" || nat_fail "dumpable not restored: $(grep dumpable "$T/nd.out")"

# Killed before its at-exit scan.
set +e
"$LEAKRAY" native run --no-timing -- "$B/guarded" crash "$T/cr.pid" "$T/cr.go" \
    >"$T/cr.out" 2>"$T/cr.err" &
RUN=$!
for _ in $(seq 250); do [ -s "$T/cr.pid" ] && break; sleep 0.02; done
"$LEAKRAY" native check "$(cat "$T/cr.pid")" >/dev/null || nat_fail "check before the crash"
touch "$T/cr.go"
wait "$RUN"
rc=$?
set -e
[ $rc = 4 ] && grep -q "killed by signal 11 before its at-exit scan" "$T/cr.err" ||
    nat_fail "a crashed program's run: rc $rc, $(cat "$T/cr.err")"

# A program that becomes another user.
if [ "$(id -u)" = 0 ] && id nobody >/dev/null 2>&1; then
    set +e
    "$LEAKRAY" native run --no-timing -- "$B/guarded" dropper >"$T/dr.out" 2>"$T/dr.err"
    rc=$?
    set -e
    [ $rc = 4 ] && grep -q "cannot create .*scan\..*: Permission denied" "$T/dr.err" ||
        nat_fail "dropper: rc $rc, $(cat "$T/dr.err")"
    mkdir -p "$T/open" && chmod 1777 "$T/open"
    "$LEAKRAY" native run --no-timing --json --keep "$T/open" -- "$B/guarded" dropper \
        >"$T/dr.json" 2>"$T/dr2.err" || nat_fail "dropper into a writable folder"
    python3 -c "import json,sys; d=json.load(open(sys.argv[1])); \
assert d['direct']['bytes'] == 123, d['direct']" "$T/dr.json" || nat_fail "dropper's leak"
fi
# The program's own status, and --fail-on-leak's 1.
set +e
"$LEAKRAY" native run --no-timing -- "$B/guarded" status 3 >"$T/st.out" 2>&1
rc=$?
"$LEAKRAY" native run --no-timing --fail-on-leak -- "$B/guarded" status 0 >"$T/st0.out" 2>&1
rc0=$?
"$LEAKRAY" native run --no-timing -- "$B/guarded" status 0 >"$T/st1.out" 2>&1
rc1=$?
set -e
[ $rc = 3 ] || fail_st="a program's status 3 gave $rc"
[ $rc0 = 1 ] || fail_st="--fail-on-leak with a leak gave $rc0"
[ $rc1 = 0 ] || fail_st="a program's status 0 gave $rc1"
[ -z "${fail_st:-}" ] || nat_fail "$fail_st"
grep -q "direct 77 in 1" "$T/st.out" || nat_fail "the failed program's report: $(cat "$T/st.out")"

# A link planted at the report's temporary name is removed, not written through.
echo "keep me" >"$T/victim"
ln -s "$T/victim" "$T/fixed.lrn.tmp"
LD_PRELOAD=$NAT_LIB LEAKRAY_NATIVE_OUT=$T/fixed.lrn "$B/guarded" status 0 ||
    nat_fail "the program under plain LD_PRELOAD"
[ "$(cat "$T/victim")" = "keep me" ] || nat_fail "the report was written through a planted link"
grep -q "^reason exit" "$T/fixed.lrn" || nat_fail "no report beside the planted link"
[ "$(stat -c %a "$T/fixed.lrn")" = 600 ] || nat_fail "the report is not 0600"
# A daemon that closes every inherited descriptor, then makes a pipe on the freed numbers:
# its bytes are its own (the monitor read them), and a check still gets a scan.
"$LEAKRAY" native run --no-timing -- "$B/guarded" daemon "$T/dm.pid" "$T/dm.stop" \
    >"$T/dm.out" 2>&1 &
RUN=$!
for _ in $(seq 400); do [ -s "$T/dm.pid" ] && break; sleep 0.02; done
sleep 2.5 # the monitor looks at its descriptors every 2 s
"$LEAKRAY" native check "$(cat "$T/dm.pid")" --json --no-timing >"$T/dm.json" ||
    nat_fail "check of a daemon that closed the monitor's descriptors"
touch "$T/dm.stop"
wait "$RUN" || true
grep -q "^read back 25$" "$T/dm.out" || nat_fail "the daemon's pipe: $(grep 'read back' "$T/dm.out")"
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); \
assert d['direct']['bytes'] == 42, d['direct']" "$T/dm.json" || nat_fail "the daemon's leak"
# The program's signal dispositions are its own: leakray ignores SIGXFSZ (a file-size limit
# is an error message), the program it runs does not.
ign=$("$LEAKRAY" native run --no-timing -- grep SigIgn /proc/self/status | awk '/^SigIgn/ {print $2}')
[ $((0x$ign & (1 << 24))) = 0 ] || nat_fail "the program inherited SIGXFSZ ignored ($ign)"

# Ended by a signal: a last scan first. SIGTERM to the whole process group (as a service
# manager stops a unit, and as Ctrl-C reaches both), and to leakray alone (passed on).
for how in group leakray; do
    rm -f "$T/w.pid"
    setsid "$LEAKRAY" native run --no-timing -- "$B/guarded" wait "$T/w.pid" >"$T/w-$how.out" 2>&1 &
    RUN=$!
    for _ in $(seq 400); do [ -s "$T/w.pid" ] && break; sleep 0.02; done
    WP=$(cat "$T/w.pid")
    if [ $how = group ]; then
        kill -TERM -- "-$(ps -o pgid= -p "$WP" | tr -d ' ')"
    else
        kill -TERM "$RUN"
    fi
    set +e
    wait "$RUN"
    rc=$?
    set -e
    [ $rc = 143 ] || nat_fail "SIGTERM ($how): exit $rc: $(cat "$T/w-$how.out")"
    grep -q "scan on exit" "$T/w-$how.out" && grep -q "direct 128 in 2" "$T/w-$how.out" ||
        nat_fail "SIGTERM ($how): no last scan: $(cat "$T/w-$how.out")"
done
echo "native_guard: ok"
