#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# exit_frees.sh: what a verb leaves to the process's exit. A release build's verbs that load a
# dump return without freeing the graph, the analyses' arrays and the input's mapping (the exit
# takes them back sooner: cli_exit_keeps_heap in cli/cli_common.c), and with
# LEAKRAY_EXIT_FREES=1 they free everything, so valgrind and heap profilers see no block left.
# Each command runs under valgrind (heap summary only): with LEAKRAY_EXIT_FREES=1 no byte may
# be in use at exit; the even lines run again without it, and some must be (the graph at
# least), the HPROF, V8 (DevTools model) and streaming histogram paths included. An ASan build
# always frees (LeakSanitizer checks the same commands through the identity test): skipped.
set -euo pipefail
: "${LEAKRAY:?}" "${LEAKRAY_SRC:?}" "${LEAKRAY_BUILD:?}"
source "$LEAKRAY_SRC/tests/e2e/need_lib.bash"
fx="${LEAKRAY_FIXTURES:-$LEAKRAY_SRC/../shared/fixtures}"
if [ ! -f "$fx/hprof/RI.hprof" ] || [ ! -f "$fx/v8/heap-1.heapsnapshot" ]; then
    if [ "${CI:-}" = true ]; then echo "FAIL: fixtures missing in $fx" >&2; exit 1; fi
    echo "SKIP: fixtures not found in $fx"
    exit 77
fi
if grep -qa __asan_init "$LEAKRAY"; then
    echo "SKIP: sanitizer build (it frees everything at exit; LeakSanitizer checks that)"
    exit 77
fi
need_tools valgrind
work="$LEAKRAY_BUILD/tmp/exit_frees"
rm -rf "$work"
mkdir -p "$work"
ri=$fx/hprof/RI.hprof
v8=$fx/v8
# one command per line: the verb's arguments (word-split; no spaces inside an argument)
cat >"$work/commands" <<EOF
info $ri
histo $ri
histo $ri --retained
top $ri
top $ri --by class
show $ri 0x50000495
path $ri 0x50000495
path $ri --class java.lang.String --merged
dupes $ri
threads $ri
cycles $ri
clusters $ri
instances $ri java.lang.String --sort retained --limit 5
sql $ri --sql-file $LEAKRAY_SRC/tests/data/sql/top.sql
diff $fx/hprof/test-dump-base.hprof $fx/hprof/test-dump.hprof
convert $ri -o $work/ri.heapsnapshot
report $ri -o $work/ri.html
analyze $ri
top $v8/heap-1.heapsnapshot
histo $v8/heap-1.heapsnapshot
path $v8/heap-1.heapsnapshot @7271
show $v8/heap-1.heapsnapshot @7271
leaks --baseline $v8/heap-1.heapsnapshot --target $v8/heap-2.heapsnapshot --final $v8/heap-3.heapsnapshot
EOF
# Bytes in use at exit per valgrind's heap summary (stdout discarded, exit code kept apart).
in_use() {
    local log=$1
    { sed -n 's/.*in use at exit: \([0-9,]*\) bytes.*/\1/p' "$log" 2>/dev/null || true; } |
        tr -d ,
}
fail=0 n=0
while read -r -a args; do
    n=$((n + 1))
    # without LEAKRAY_EXIT_FREES: the even lines (the verbs share one exit path; these
    # still take the streaming histogram, HPROF and V8)
    kinds=1
    [ $((n % 2)) = 1 ] || kinds="1 0"
    for frees in $kinds; do
        log="$work/$n.$frees.log"
        rc=0
        LEAKRAY_EXIT_FREES=$frees valgrind --leak-check=no --log-file="$log" \
            "$LEAKRAY" "${args[@]}" --json >/dev/null 2>"$work/$n.$frees.err" || rc=$?
        bytes=$(in_use "$log")
        if [ "$rc" != 0 ] || [ -z "$bytes" ]; then
            echo "FAIL: leakray ${args[*]} (LEAKRAY_EXIT_FREES=$frees) exit $rc" >&2
            head -5 "$work/$n.$frees.err" >&2
            fail=1
        elif [ "$frees" = 1 ] && [ "$bytes" != 0 ]; then
            echo "FAIL: leakray ${args[*]}: $bytes bytes in use at exit with" \
                "LEAKRAY_EXIT_FREES=1 (must free everything; see $log)" >&2
            fail=1
        elif [ "$frees" = 0 ] && [ "$bytes" = 0 ]; then
            echo "FAIL: leakray ${args[*]}: freed everything before exiting" \
                "(a release build leaves it to the exit)" >&2
            fail=1
        fi
    done
done <"$work/commands"
[ "$fail" = 0 ] || exit 1
echo "ok: $n commands free everything with LEAKRAY_EXIT_FREES=1 and leave it to the exit without"
