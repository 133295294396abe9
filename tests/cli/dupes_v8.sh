#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# dupes_v8.sh: `leakray dupes` lists only duplicate strings that waste bytes. Recent V8 states
# 0 bytes for the strings of its read-only space and for names its snapshot writer adds (a
# number's value, a script's type): in heap-1.heapsnapshot (d8, 2026) "normal" is @639 under
# (Read-only roots) and @27871, a Script's script_type_name, both 0 bytes. Such copies free
# nothing, so no group of them is listed or counted: heap-1 has 4 groups, 108 bytes, not 150
# groups of which 146 waste 0. Text and JSON agree on every V8 fixture, a Chrome worker's
# included; an HPROF dump keeps its README figures.
set -euo pipefail
. "$(dirname "$0")/lib/common.bash"
cli_init dupes-v8
cli_fixtures
V8=${LEAKRAY_FIXTURES:-$LEAKRAY_SRC/../shared/fixtures}/v8
[ -d "$V8" ] || skip "no V8 fixtures at $V8"
f=$V8/heap-1.heapsnapshot

# The copies are really 0 bytes: the size is the snapshot's, not misread.
for id in @639 @27871; do
    run show --json --no-timing "$f" "$id"
    expect_rc 0
    json_eq '[d["object"]["string"], d["object"]["shallow"]]' '["normal", 0]'
done

run dupes --no-timing "$f"
expect_rc 0
expect_out '^Duplicate strings: 4 groups, 108 bytes wasted$'
expect_out '^  #1 x3 40 wasted: "xxxxxxxx"$'
expect_out '^  #4 x2 20 wasted: "Worker"$'
grep -qE '^  #[0-9]+ x[0-9,]+ 0 wasted:' "$T/out" && fail "a group wasting 0 bytes is listed"
grep -qE '^  #5 ' "$T/out" && fail "more than 4 string groups listed"

run dupes --json --no-timing "$f"
expect_rc 0
json_eq '[d["strings"]["n_groups"], d["strings"]["wasted"]]' '[4, 108]'
json_eq '[[g["value"], g["count"], g["wasted"]] for g in d["strings"]["groups"]]' \
    '[["xxxxxxxx", 3, 40], ["WebAssembly", 2, 24], ["get disposed", 2, 24], ["Worker", 2, 20]]'

# Every V8 fixture: the text's count is the JSON's, each listed group wastes bytes, and the
# groups add up to the section's total.
for s in "$V8"/*.heapsnapshot "$V8"/*.heapsnapshot.gz; do
    run dupes --no-timing --top 100000 "$s"
    expect_rc 0
    grep -qE '^  #[0-9]+ x[0-9,]+ 0 wasted:' "$T/out" && fail "$s: a group wasting 0 bytes"
    text_n=$(sed -n 's/^Duplicate strings: \([0-9,]*\) groups.*/\1/p' "$T/out" | tr -d ,)
    run dupes --json --no-timing --top 100000 "$s"
    expect_rc 0
    json_eq 'd["strings"]["n_groups"]' "$text_n"
    json_eq 'len(d["strings"]["groups"]) == d["strings"]["n_groups"]' true
    json_eq 'all(g["wasted"] > 0 for g in d["strings"]["groups"])' true
    json_eq 'sum(g["wasted"] for g in d["strings"]["groups"]) == d["strings"]["wasted"]' true
done
run dupes --no-timing "$V8/snapshot1.heapsnapshot.gz"
expect_out '^Duplicate strings: 8 groups, 292 bytes wasted$'

# HPROF strings are never 0 bytes: the README's figures stand.
run dupes --no-timing --mapping "$FIX/test-dump.map" "$FIX/test-dump.hprof"
expect_rc 0
expect_out '^Duplicate strings: 28 groups, 1,358 bytes \(1\.4 kB\) wasted$'
expect_out '^  #1 x7 144 wasted: "US-ASCII"$'
echo "dupes_v8: ok"
