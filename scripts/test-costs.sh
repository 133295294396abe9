#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# test-costs.sh [--cpu FILE] FOLDER... : writes tests/costs.txt, one line per test that takes
# 3 s or more in either build:
#     NAME RELEASE_SECONDS SANITIZER_SECONDS PERCENT
# The seconds are the longest run ctest recorded in each FOLDER's
# Testing/Temporary/CTestCostData.txt (a build folder, or the folder scripts/run-tests.sh runs
# both builds from: the sanitizer build's tests are named NAME@asan there). CMake gives them
# as each test's COST, so that a fresh build folder (CI's), which has no recorded times, still
# starts the longest tests first and no long test is left to run alone at the end.
# PERCENT is the share of a processor the test's processes use over its run, by FILE's
# figures (scripts/test-cpu.sh BUILD > FILE): a test that waits on a JVM's timed stages or a
# server uses little, and scripts/run-tests.sh runs it beside the busy ones. Without --cpu
# each test keeps the share costs.txt gave it (100 for a new test).
set -euo pipefail
cpu=
if [ "${1:-}" = --cpu ]; then
    cpu=$2
    shift 2
fi
[ $# -ge 1 ] || { echo "usage: $0 [--cpu FILE] FOLDER..." >&2; exit 2; }
out="$(cd "$(dirname "$0")/.." && pwd)/tests/costs.txt"
for b in "$@"; do
    f=$b/Testing/Temporary/CTestCostData.txt
    [ -f "$f" ] || { echo "$0: no $f (run ctest there first)" >&2; exit 1; }
    # "NAME RUNS SECONDS" lines, then "---" and the tests that failed
    awk '$1 == "---" { exit } NF == 3 { print "T", $1, $3 }' "$f"
done >"$out.tmp"
if [ -n "$cpu" ]; then
    awk '$2 > 0 { p = int(100 * $3 / $2 + 0.5); print "C", $1, (p > 100 ? 100 : p < 1 ? 1 : p) }' \
        "$cpu" >>"$out.tmp"
elif [ -f "$out" ]; then
    awk '!/^#/ && NF == 4 { print "C", $1, $4 }' "$out" >>"$out.tmp"
fi
awk '$1 == "T" {
        n = $2; a = sub(/@asan$/, "", n)
        if (a) { if ($3 > s[n]) s[n] = $3 } else if ($3 > r[n]) r[n] = $3
        seen[n] = 1
     }
     $1 == "C" { k[$2] = $3 }
     END {
        for (t in seen)
            if (r[t] >= 3 || s[t] >= 3)
                printf "%s %.0f %.0f %s\n", t, r[t], s[t], (t in k ? k[t] : 100)
     }' "$out.tmp" | sort -k2,2nr -k1,1 >"$out.new"
{
    echo "# NAME RELEASE_SECONDS SANITIZER_SECONDS PERCENT (scripts/test-costs.sh writes it; CMake"
    echo "# reads it as each test's COST and the share of a processor it takes, in percent)"
    cat "$out.new"
} >"$out"
rm -f "$out.tmp" "$out.new"
echo "wrote $(grep -vc '^#' "$out") tests to $out"
