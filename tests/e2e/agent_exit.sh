#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# agent_exit.sh: the analysis runs outside the watched JVM. A JVM that exits while its dump is
# being analysed exits at once and normally, and the analysis (here slowed down through the
# leakray= option) still writes NAME.txt / NAME.json beside the dump, never leaving partial
# files, nor holds any of the JVM's files (its listening socket). Then `leakray watch analyze` (what the agent runs) keeps at most --max-dumps dumps,
# deleting the oldest with their reports, and prints the one-line summary; the agent keeps
# no more than max-dumps when the analysis fails.
set -euo pipefail
: "${LEAKRAY:?}" "${LEAKRAY_SRC:?}" "${LEAKRAY_BUILD:?}"
work="$LEAKRAY_BUILD/tmp/agent_exit"
# shellcheck source=agent_lib.bash
. "$LEAKRAY_SRC/tests/e2e/agent_lib.bash"
agent_setup
fail() { echo "FAIL: $*" >&2; exit 1; }

slow="$work/slow-leakray"
printf '#!/bin/sh\nls -l /proc/$$/fd > "%s/fds.txt"\nsleep 2\nexec "%s" "$@"\n' "$work" \
    "$LEAKRAY" > "$slow"
chmod +x "$slow"
t0=$(date +%s%N)
AGENT_LISTEN=1 agent_run "$work/d" listeners 5 1200 "leakray=$slow" > "$work/out.txt" ||
    fail "the JVM failed"
t1=$(date +%s%N)
(( (t1 - t0) / 1000000 < 6000 )) || fail "the JVM waited for the analysis"
compgen -G "$work/d/leakray-*.hprof" >/dev/null || fail "no dump"
if compgen -G "$work/d/leakray-*.txt" >/dev/null; then
    fail "the report was there before the slowed analysis could finish"
fi
agent_wait "$work/d" 30
if compgen -G "$work/d/*.part*" >/dev/null || compgen -G "$work/d/.*.part*" >/dev/null; then
    fail "partial files left"
fi
grep -q '"application_leaks"' "$work"/d/leakray-*.json || fail "JSON report"
grep -q '^1 APPLICATION LEAKS$' "$work"/d/leakray-*.txt || fail "text report"
echo "JVM exited before the analysis; the report was written after it"
# the analysis holds none of the JVM's files: a server's listening socket it kept open made
# the restarted server fail to bind its port while the analysis ran
grep -q '^listening ' "$work/out.txt" || fail "the program opened no socket"
[ -s "$work/fds.txt" ] || fail "the analysis listed no files"
if grep -Eq 'socket:|\.jar|\.hprof' "$work/fds.txt"; then
    fail "the analysis inherited the JVM's files: $(grep -E 'socket:|\.jar|\.hprof' "$work/fds.txt")"
fi
echo "the analysis inherited none of the JVM's files"

# retention: three dumps, --max-dumps 2
dump=$(ls "$work"/d/leakray-*.hprof)
mkdir -p "$work/keep"
for i in 1 2 3; do cp "$dump" "$work/keep/leakray-20260101-00000$i-1-1.hprof"; done
for i in 1 2; do
    "$LEAKRAY" watch analyze "$work/keep/leakray-20260101-00000$i-1-1.hprof" --quiet \
        --max-dumps 5 || fail "watch analyze $i"
done
"$LEAKRAY" watch analyze "$work/keep/leakray-20260101-000003-1-1.hprof" --max-dumps 2 \
    --pause-ms 12 --retained 5 2> "$work/summary.txt" || fail "watch analyze 3"
grep -Eq "^leakray: 1 leak, [0-9.]+ kB retained, report at $work/keep/leakray-20260101-000003-1-1.txt \(dump [0-9.]+ MB, pause 12 ms, analysis [0-9.]+ s\)$" \
    "$work/summary.txt" || fail "summary line: $(cat "$work/summary.txt")"
left=$(cd "$work/keep" && ls | tr '\n' ' ')
[ "$left" = "leakray-20260101-000002-1-1.hprof leakray-20260101-000002-1-1.json leakray-20260101-000002-1-1.txt leakray-20260101-000003-1-1.hprof leakray-20260101-000003-1-1.json leakray-20260101-000003-1-1.txt " ] ||
    fail "after pruning: $left"
"$LEAKRAY" watch analyze "$work/keep/leakray-20260101-000003-1-1.hprof" --json --no-timing \
    --quiet > "$work/wa.json"
python3 -c "
import json; d=json.load(open('$work/wa.json'))
assert d['leaks']==1 and d['application_leaks']==1 and d['retained_bytes']>300000, d
assert 'analysis_ms' not in d, d" || fail "watch analyze --json"
echo "max-dumps 2: the oldest dump and its reports deleted; summary line printed"

# a dump is marked as being analysed from the start of its analysis: the next one's pruning
# (max-dumps 1) keeps it while it runs (stopped here), and its report still comes
mkdir -p "$work/busy"
for i in 1 2; do cp "$dump" "$work/busy/leakray-20260101-00000$i-1-1.hprof"; done
"$LEAKRAY" watch analyze "$work/busy/leakray-20260101-000001-1-1.hprof" --quiet \
    --max-dumps 1 &
slowpid=$!
for _ in $(seq 200); do
    [ -e "$work/busy/leakray-20260101-000001-1-1.json.part" ] && break
    sleep 0.01
done
kill -STOP "$slowpid" 2>/dev/null || true
[ -e "$work/busy/leakray-20260101-000001-1-1.json.part" ] ||
    { kill -CONT "$slowpid" 2>/dev/null || true; fail "no NAME.json.part while the analysis runs"; }
"$LEAKRAY" watch analyze "$work/busy/leakray-20260101-000002-1-1.hprof" --quiet --max-dumps 1 ||
    { kill -CONT "$slowpid" 2>/dev/null || true; fail "watch analyze of the second dump"; }
[ -e "$work/busy/leakray-20260101-000001-1-1.hprof" ] ||
    { kill -CONT "$slowpid" 2>/dev/null || true; fail "the dump being analysed was pruned"; }
kill -CONT "$slowpid"
wait "$slowpid" || fail "the first analysis failed"
[ -e "$work/busy/leakray-20260101-000001-1-1.json" ] || fail "the first analysis wrote no report"
echo "a dump being analysed survives the next one's pruning"
# ... but not the mark of an analysis killed by -9 (no handler removes it): the process it
# names is gone, and the dump is pruned as any other
mkdir -p "$work/stale"
for i in 1 2; do cp "$dump" "$work/stale/leakray-20260101-00000$i-1-1.hprof"; done
dead=$(sh -c 'echo $$')
printf 'leakray-analysis %s %s\n' "$dead" "$(readlink /proc/self/ns/pid)" \
    >"$work/stale/leakray-20260101-000001-1-1.json.part"
"$LEAKRAY" watch analyze "$work/stale/leakray-20260101-000002-1-1.hprof" --quiet --max-dumps 1 ||
    fail "watch analyze beside a stale mark"
[ ! -e "$work/stale/leakray-20260101-000001-1-1.hprof" ] ||
    fail "a dead analysis' mark kept its dump"
[ ! -e "$work/stale/leakray-20260101-000001-1-1.json.part" ] || fail "the stale mark stays"
echo "the mark of a dead analysis keeps nothing"
# ... while one from another process namespace (a container sharing the folder) keeps its
# dump: its process cannot be asked
for i in 1 2; do cp "$dump" "$work/stale/leakray-20260101-00000$i-1-1.hprof"; done
printf 'leakray-analysis %s pid:[1]\n' "$dead" \
    >"$work/stale/leakray-20260101-000001-1-1.json.part"
"$LEAKRAY" watch analyze "$work/stale/leakray-20260101-000002-1-1.hprof" --quiet --max-dumps 1 ||
    fail "watch analyze beside another namespace's mark"
[ -e "$work/stale/leakray-20260101-000001-1-1.hprof" ] ||
    fail "another namespace's analysis lost its dump"
echo "the mark of another namespace's analysis keeps its dump"

# the agent prunes too: an analysis that fails (its leakray crashes; one that is not there is
# an option error at start) left every dump behind it, max-dumps=1 or not
for i in 1 2 3; do
    agent_run "$work/fails" listeners 5 1200 "leakray=/bin/false,max-dumps=1" \
        2>/dev/null || fail "the JVM failed (run $i)"
done
n=$(compgen -G "$work/fails/leakray-*.hprof" | wc -l)
# ... and the status says the analysis failed, not "done"
agent_run "$work/fails2" listeners 5 1500 "leakray=/bin/false" 2>/dev/null \
    >"$work/fails2.out" &
jvm=$!
for _ in $(seq 120); do compgen -G "$work/fails2/leakray-*.hprof" >/dev/null && break; sleep 0.1; done
sleep 0.3
# agent_run runs java in a subshell: its child
jpid=$(cat /proc/"$jvm"/task/*/children 2>/dev/null | tr ' ' '\n' | grep -m1 . || echo "$jvm")
"$LEAKRAY" watch status "$jpid" >"$work/fails2.status" 2>&1 || true
wait "$jvm" || fail "the JVM failed"
grep -Eq '^analysis +failed' "$work/fails2.status" || fail "status: $(cat "$work/fails2.status")"
[ "$n" = 1 ] || fail "max-dumps=1 with a failing analysis kept $n dumps"
echo "max-dumps 1, the analysis failing: one dump kept"
echo "agent_exit: ok"
