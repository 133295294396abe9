#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# top_zero.sh: `--top 0` lists everything in every verb that takes it, as its help says:
# dupes' string groups and cycles' components as top's and histo's rows (they printed none).
set -euo pipefail
. "$(dirname "$0")/lib/common.bash"
cli_init top-zero
cli_fixtures
command -v python3 >/dev/null || skip "no python3"
dump=$FIX/dialer.android-hprof

run dupes --json --no-timing --top 0 "$dump"
expect_rc 0
n=$(json_get "d['strings']['n_groups']")
[ "$n" -gt 20 ] || fail "only $n duplicate string groups: the check needs more than 20"
json_eq "len(d['strings']['groups'])" "$n"
run dupes --no-timing --top 0 "$dump"
expect_rc 0
grep -q 'more groups (--top N)' "$T/out" && fail "dupes --top 0 still cut its list"
[ "$(grep -c '^  #' "$T/out" || true)" -ge "$n" ] || fail "dupes --top 0 printed fewer than $n strings"

run cycles --json --no-timing --top 0 "$dump"
expect_rc 0
all=$(json_get "len(d['sccs'])")
run cycles --json --no-timing "$dump"
def=$(json_get "len(d['sccs'])")
[ "$def" = 20 ] && [ "$all" -gt "$def" ] || fail "cycles: $all components with --top 0, $def by default"

run histo --json --no-timing --top 0 "$dump"
expect_rc 0
json_eq "len(d['classes']) > 20" true
echo "ok: --top 0 lists everything in dupes, cycles and histo"
