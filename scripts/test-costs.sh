#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# test-costs.sh BUILD... : writes tests/costs.txt from the times ctest recorded in each build
# folder (Testing/Temporary/CTestCostData.txt), the greatest per test, for the tests that take
# 3 s or more. CMake gives them as each test's COST, so that a fresh build folder (CI's),
# which has no recorded times, still starts the longest tests first and no long test is
# left to run alone at the end.
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: $0 BUILD..." >&2; exit 2; }
out="$(cd "$(dirname "$0")/.." && pwd)/tests/costs.txt"
for b in "$@"; do
    f=$b/Testing/Temporary/CTestCostData.txt
    [ -f "$f" ] || { echo "$0: no $f (run ctest there first)" >&2; exit 1; }
    awk 'NF == 3 { print $1, $3 }' "$f"
done | awk '{ if ($2 > c[$1]) c[$1] = $2 } END { for (t in c) if (c[t] >= 3) printf "%s %.0f\n", t, c[t] }' |
    sort -k2,2nr -k1,1 >"$out.tmp"
{
    echo "# test seconds: the longest time one run took in the release or the sanitizer build"
    echo "# (scripts/test-costs.sh writes it; CMake reads it as each test's COST)"
    cat "$out.tmp"
} >"$out"
rm -f "$out.tmp"
echo "wrote $(grep -vc '^#' "$out") tests to $out"
