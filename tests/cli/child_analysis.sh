#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# child_analysis.sh: `store ingest` and `watch analyze` run the analysis in a child
# `leakray analyze`, which must be bounded as the user asked and must not outlive them.
# - --max-memory/--no-spill, --max-inflate and --tmpdir reach the child (it analysed under
#   the defaults: `--max-memory 1m --no-spill` stored the dump and exited 0);
# - killing the parent, even with SIGKILL, ends the child (it was reparented to init and ran
#   the whole analysis, holding the caller's stderr); SIGTERM to `watch analyze` removes its
#   NAME.json.part and NAME.txt.part;
# - standard input given to `store ingest -` is copied into an unnamed file (a kill left a
#   named leakray-ingest.XXXXXX copy of the whole dump in the temporary folder);
# - a store that cannot be written for want of room is not called "not a usable SQLite store";
# - watch analyze takes --mapping, leaves no partial report after kill -9, and exits 5 at a
#   limit it was given (it said "internal" error).
# The child is stopped (SIGSTOP) while the parent is killed, so the SIGTERM it is sent stays
# pending where the test can read it (/proc/PID/status ShdPnd, bit 15 - 1), whatever the
# machine's speed.
set -euo pipefail
. "$(dirname "$0")/lib/common.bash"
cli_init child-analysis
cli_fixtures
mkdir -p "$T/full"
slow=$FIX/java_pid1884.0001.hprof.gz # about 500 MB to inflate: the child runs for seconds

# under AddressSanitizer the sanitizer owns the allocator and no memory limit is counted
asan=0
[[ $(ldd "$LEAKRAY" 2>/dev/null) == *libasan* ]] && asan=1
if [ $asan = 0 ]; then
    run store ingest --db "$T/s.db" --max-memory 1m --no-spill "$FIX/RI.hprof"
    expect_rc 5
    expect_out 'memory limit'
fi
run store ingest --db "$T/s.db" --max-inflate 1m "$FIX/openjdk_jdk11_04_x64.hprof.gz"
expect_rc 5
expect_out 'exceeds --max-inflate'

# the most --rules a verb takes and a --mapping reach the child whole (one slot short, the
# dump's name was dropped: "missing argument"); a refused report read from standard input is
# named "-", not by the copy's /proc name
mkdir -p "$T/r16"
args=()
for i in $(seq 16); do
    : > "$T/r16/r$i.rules"
    args+=(--rules "$T/r16/r$i.rules")
done
: > "$T/r16/map.txt"
run store ingest --db "$T/r16/s.db" "${args[@]}" --mapping "$T/r16/map.txt" "$FIX/RI.hprof"
expect_rc 0
expect_out '^stored .*RI.hprof: report #1'
echo '{"x": 1}' > "$T/r16/not.json"
run store ingest --db "$T/r16/s.db" - < "$T/r16/not.json"
expect_rc 3
expect_err '^leakray: -: no schema_version'

# a store whose folder cannot be written to (a full disk; here a file-size limit) says so:
# "not a usable SQLite store" read as a damaged store
set +e
(ulimit -f 1; exec "$LEAKRAY" store ingest --db "$T/full/s.db" "$FIX/RI.hprof") \
    >"$T/out" 2>"$T/err" < /dev/null
RC=$?
set -e
expect_rc 4
expect_err 'cannot write beside the store: .* \(is its folder.s disk full\?\)'

# the child of parent $1 once it runs leakray analyze (after its exec: until then it has the
# parent's command line)
child_of() {
    local c
    for _ in $(seq 1000); do
        c=$(pgrep -P "$1" || true)
        if [ -n "$c" ] &&
            [ "$(tr '\0' '\n' < "/proc/$c/cmdline" 2>/dev/null | sed -n 2p)" = analyze ]; then
            echo "$c"
            return 0
        fi
        sleep 0.01
    done
    return 1
}
stop() { # stops $1 and waits until it is (a SIGTERM sent before would be taken first)
    kill -STOP "$1"
    for _ in $(seq 500); do
        grep -q '^State:.*stopped' "/proc/$1/status" && return 0
        sleep 0.01
    done
    fail "process $1 did not stop"
}
term_pending() { # whether SIGTERM waits to be delivered to stopped process $1
    local p
    p=$(awk '/^ShdPnd:/ {print $2}' "/proc/$1/status")
    (((16#$p >> 14) & 1))
}

mkdir -p "$T/tmp"
"$LEAKRAY" store ingest --db "$T/k.db" --tmpdir "$T/tmp" - < "$slow" > "$T/k.out" 2>&1 &
parent=$!
child=$(child_of $parent) || fail "store ingest started no analysis"
stop "$child"
left=$(ls -A "$T/tmp")
kill -KILL $parent
wait $parent 2>/dev/null || true
sleep 0.2
pending=0
term_pending "$child" && pending=1
kill -KILL "$child" 2>/dev/null || true
[ -z "$left" ] || fail "store ingest - left a named copy in --tmpdir: $left"
[ $pending = 1 ] || fail "store ingest killed: its analysis was not told to end"

cp "$slow" "$T/w.hprof" # a gzip dump named .hprof: read as any, but slow to inflate
"$LEAKRAY" watch analyze "$T/w.hprof" > "$T/w.out" 2>&1 &
parent=$!
child=$(child_of $parent) || fail "watch analyze started no analysis"
stop "$child"
kill -TERM $parent
wait $parent 2>/dev/null || true
sleep 0.2
pending=0
term_pending "$child" && pending=1
kill -KILL "$child" 2>/dev/null || true
[ $pending = 1 ] || fail "watch analyze terminated: its analysis was not told to end"
[ ! -e "$T/w.json.part" ] && [ ! -e "$T/w.txt.part" ] ||
    fail "watch analyze terminated: partial reports left: $(ls "$T")"
# and with kill -9, which no handler sees: the JSON report is an unnamed file until complete
# (a partial w.json.part was left beside the dump); what may stay is the mark naming the
# analysis' process, gone now: it keeps no dump, and the next pruning removes it
"$LEAKRAY" watch analyze "$T/w.hprof" > "$T/w.out" 2>&1 &
parent=$!
child=$(child_of $parent) || fail "watch analyze started no analysis"
kill -KILL $parent
wait $parent 2>/dev/null || true
sleep 0.2
kill -KILL "$child" 2>/dev/null || true
left=$(cd "$T" && ls | grep '^w\..*part$' || true)
if [ -n "$left" ]; then
    [ "$left" = w.json.part ] && grep -q '^leakray-analysis [0-9]' "$T/w.json.part" ||
        fail "watch analyze killed: partial reports left: $left"
    rm -f "$T/w.json.part"
fi
# a limit given to watch analyze stops the analysis as a limit (exit 5), not as a fault
cp "$slow" "$T/ri.hprof"
run watch analyze "$T/ri.hprof" --max-inflate 1m
expect_rc 5
expect_err 'analyze exit 5: .*exceeds --max-inflate'
ls "$T" | grep -q '^ri\.\(json\|txt\)' && fail "reports left after the limit: $(ls "$T")"
# --mapping reaches the analysis: a mapping that cannot be read fails it
run watch analyze "$T/ri.hprof" --mapping "$T/no-such-mapping.txt"
[ "$RC" != 0 ] || fail "watch analyze --mapping: a missing mapping file was not read"
echo "child_analysis: ok"
