#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# spill.sh: past --max-memory, large arrays spill into unnamed files in --tmpdir instead of
# failing. A real JVM writes a dump of 540,000 small objects (tests/programs/scale/
# ManyObjects.java, 24 MB), whose per-object and per-reference arrays run to megabytes:
#   - analyze, top, info and histo --retained under --max-memory 8M (half of what analyze
#     allocates unlimited), and sql (SQLite sizes its blocks with malloc_usable_size, which
#     answers for spilled blocks): exit 0 and output identical to the unlimited run; the JSON
#     timing block counts the spilled arrays and a peak within the limit; own memory
#     (RssAnon + RssShmem, sampled) stays under the limit plus the program's fixed part,
#     below the unlimited run's; nothing is left in --tmpdir;
#   - a limit too small even so (1M): exit 5 with the memory-limit line, --tmpdir empty, as
#     after a run killed by SIGKILL in the middle;
#   - --no-spill under 8M: exit 5 (the limit as before spilling existed);
#   - no room in --tmpdir (a file-size limit, ulimit -f): exit 5, "no room in DIR to spill";
#   - past the write-back threshold (LEAKRAY_SPILL_COOL_AFTER=0), the graph's arrays move to
#     files in place before scratch arrays spill: some move, output identical, none below
#     the default threshold.
# Under AddressSanitizer the sanitizer owns the allocator: nothing is counted or spilled, and
# only the unlimited runs are checked.
set -euo pipefail
. "$(dirname "$0")/lib/common.bash"
cli_init spill
cli_need_java
javac -d "$T/classes" "$LEAKRAY_SRC/tests/programs/scale/ManyObjects.java"
java -Xmx256m -XX:+UseSerialGC -cp "$T/classes" ManyObjects "$T/m.hprof" 150000 >/dev/null
D=$T/m.hprof
mkdir -p "$T/td"
verbs=("analyze" "top" "info" "histo --retained")
for v in "${verbs[@]}"; do
    # shellcheck disable=SC2086
    run $v --no-progress --no-timing --tmpdir "$T/td" "$D"
    expect_rc 0
    cp "$T/out" "$T/plain.${v%% *}"
done
if [[ $(ldd "$LEAKRAY" 2>/dev/null) == *libasan* ]]; then
    echo "spill: ok (nothing spills under AddressSanitizer)"
    exit 0
fi
own() { "$LEAKRAY_SRC/scripts/own-memory.py" "$T/peak" "$LEAKRAY" "$@" >"$T/out" 2>"$T/err"; }
own analyze --no-progress --no-timing "$D" || fail "analyze: exit $?"
unlimited_kb=$(cat "$T/peak")

for v in "${verbs[@]}"; do
    name=${v%% *}
    # info keeps no edges and no per-node ids: it peaks near 6 MB here, so it gets half the
    # others' limit to spill at all
    limit=$((8 << 20)); [ "$name" = info ] && limit=$((4 << 20))
    # shellcheck disable=SC2086
    own $v --no-progress --no-timing --max-memory $limit --tmpdir "$T/td" "$D" ||
        fail "$v under --max-memory $((limit >> 20))M: exit $? ($(head -c 300 "$T/err"))"
    diff -u "$T/plain.$name" "$T/out" >/dev/null || fail "$v: output differs when spilling"
    peak=$(cat "$T/peak")
    # the limit counts allocations; the process also holds its stacks, libc's state and
    # the pages malloc keeps: a few MB that do not grow with the dump
    [ "$peak" -lt $(((limit >> 10) + 6144)) ] ||
        fail "$v: own memory $peak KB under a $((limit >> 20)) MB limit"
    [ -z "$(ls -A "$T/td")" ] || fail "$v: files left in --tmpdir: $(ls -A "$T/td")"
    # shellcheck disable=SC2086
    run $v --json --timing --no-progress --max-memory $limit --tmpdir "$T/td" "$D"
    expect_rc 0
    json_eq 'd["timing"]["memory"]["limit"]' $limit
    blocks=$(json_get 'd["timing"]["memory"]["spilled_blocks"]')
    spilled=$(json_get 'd["timing"]["memory"]["spilled_peak"]')
    mpeak=$(json_get 'd["timing"]["memory"]["peak"]')
    [ "$blocks" -gt 0 ] && [ "$spilled" -ge $((256 << 10)) ] ||
        fail "$v: nothing spilled under $((limit >> 20))M ($blocks blocks, $spilled bytes)"
    [ "$mpeak" -le $limit ] || fail "$v: allocated peak $mpeak over the limit $limit"
    echo "ok: $v under $((limit >> 20))M: own $peak KB (analyze unlimited: $unlimited_kb KB), spilled" \
        "$spilled bytes in $blocks arrays" >&2
done
# Arrays read only move out of memory, in place, before scratch arrays spill, once the spill
# passes the kernel's write-back threshold (here 0). Only arrays glibc maps alone can move:
# its mmap threshold is fixed at 256 KiB, as it is in effect for the arrays of a large dump.
for v in "${verbs[@]}"; do
    name=${v%% *}
    [ "$name" = info ] && continue
    export GLIBC_TUNABLES=glibc.malloc.mmap_threshold=262144
    # shellcheck disable=SC2086
    LEAKRAY_SPILL_COOL_AFTER=0 run $v --json --timing --no-progress --max-memory 12M \
        --tmpdir "$T/td" "$D"
    expect_rc 0
    moved=$(json_get 'd["timing"]["memory"]["moved_blocks"]')
    [ "$moved" -gt 0 ] || fail "$v: no array moved under 12M with LEAKRAY_SPILL_COOL_AFTER=0"
    # shellcheck disable=SC2086
    LEAKRAY_SPILL_COOL_AFTER=0 run $v --no-timing --no-progress --max-memory 12M \
        --tmpdir "$T/td" "$D"
    expect_rc 0
    diff -u "$T/plain.$name" "$T/out" >/dev/null || fail "$v: output differs with moved arrays"
    [ -z "$(ls -A "$T/td")" ] || fail "$v: files left in --tmpdir after moves"
    # below the default threshold (the kernel's, gigabytes) nothing moves
    # shellcheck disable=SC2086
    run $v --json --timing --no-progress --max-memory 12M --tmpdir "$T/td" "$D"
    json_eq 'd["timing"]["memory"]["moved_blocks"]' 0
    unset GLIBC_TUNABLES
    echo "ok: $v under 12M: $moved arrays moved out" >&2
done

limit=$((8 << 20))
# SQLite asks malloc_usable_size about the blocks it gets, spilled ones included
q="select o.class, count(*) c, sum(o.shallow) s from objects o group by o.class order by s desc"
run sql --no-progress --no-timing "$D" "$q, o.class"
expect_rc 0
cp "$T/out" "$T/plain.sql"
run sql --no-progress --no-timing --max-memory $limit --tmpdir "$T/td" "$D" "$q, o.class"
expect_rc 0
diff -u "$T/plain.sql" "$T/out" >/dev/null || fail "sql: output differs when spilling"
[ -z "$(ls -A "$T/td")" ] || fail "sql: files left in --tmpdir"

[ "$unlimited_kb" -gt $(((limit >> 10) + 6144)) ] ||
    fail "analyze unlimited owns only $unlimited_kb KB: the dump does not test spilling"

run analyze --no-progress --max-memory 1M --tmpdir "$T/td" "$D"
expect_rc 5
expect_err '^leakray: memory limit: phase "[a-z0-9 ]+" needed'
[ -z "$(ls -A "$T/td")" ] || fail "files left in --tmpdir after exit 5"

"$LEAKRAY" analyze --no-progress --max-memory $limit --tmpdir "$T/td" "$D" >/dev/null 2>&1 &
pid=$!
sleep 0.3
kill -KILL $pid 2>/dev/null || true
wait $pid 2>/dev/null || true
[ -z "$(ls -A "$T/td")" ] || fail "files left in --tmpdir after SIGKILL"

run analyze --no-progress --no-spill --max-memory $limit --tmpdir "$T/td" "$D"
expect_rc 5
expect_err '^leakray: memory limit: phase'

set +e
(ulimit -f 64; exec "$LEAKRAY" analyze --no-progress --max-memory $limit --tmpdir "$T/td" "$D") \
    >"$T/out" 2>"$T/err"
RC=$?
set -e
expect_rc 5
expect_err "^leakray: no room in $T/td to spill [0-9.]+ [kMG]?B past --max-memory 8.4 MB"
[ "$(wc -l <"$T/err")" = 1 ] || fail "no room: more than one line on stderr"
[ -z "$(ls -A "$T/td")" ] || fail "files left in --tmpdir after no room"

# a $TMPDIR where no file can be made (missing here) turned spilling off in silence: the
# message was --no-spill's, blaming the limit alone
TMPDIR=$T/missing run analyze --no-progress --max-memory $limit "$D"
expect_rc 5
expect_err "^leakray: memory limit: .*; spilling past it failed: no file can be made in $T/missing \(No such file"
echo "spill: ok"
