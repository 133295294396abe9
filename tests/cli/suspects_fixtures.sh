#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# suspects_fixtures.sh: the LARGEST RETAINERS section of `leakray analyze` on fixtures written
# by real runtimes, and the rule that one node has one retained size in analyze, top and show.
# - openjdk_jdk11_04_x64.hprof.gz (MAT's CreateCollectionDump): the CreateCollectionDump
#   object, about 74 % of the heap, is held only by a local of thread main: a suspect
#   "thread main keeps local variables ...", with its frame, never an unreachable object.
# - test.heapsnapshot (Node): the suspect is the TCP handle holding 99.6 % (1.28 GB), never a
#   synthetic node such as "(GC roots)"; its figure equals `top` and `show`.
# - browser-final.heapsnapshot.gz (Chromium): a page's `Window [JSGlobalObject]` hangs below
#   "(Global handles)", not the root; it is seen through as Node's `global` is, so the Map and
#   the Array the page keeps (15.4 % and 13.3 %) are the suspects, not the Window (30.4 %).
# - dialer.android-hprof: the $staticOverhead/$classOverhead pseudo-arrays are no duplicate
#   arrays in `dupes`, and a 3-char substring sharing a char[] wastes its own bytes only.
set -euo pipefail
. "$(dirname "$0")/lib/common.bash"
cli_init suspects-fixtures
cli_fixtures
V8=${LEAKRAY_FIXTURES:-$LEAKRAY_SRC/../shared/fixtures}/v8
jdk=$FIX/openjdk_jdk11_04_x64.hprof.gz

run analyze --no-timing "$jdk"
expect_rc 0
expect_out '^0 UNREACHABLE OBJECTS$'
expect_out '^1 LARGEST RETAINERS$'
expect_out '^Suspect 1: thread main keeps local variables with total size [0-9,]+ bytes \(7[0-9]\.[0-9] %\)'
expect_out '^Biggest local held in frame: org\.eclipse\.mat\.tests\.CreateCollectionDump\.main\(CreateCollectionDump\.java:174\)$'
run analyze --json --no-timing "$jdk"
expect_rc 0
json_eq 'd["unreachable_objects"]' '[]'
json_eq '[(s["kind"], s["class"], s["thread"]["name"]) for s in d["suspects"]]' \
    '[["thread_locals", "org.eclipse.mat.tests.CreateCollectionDump", "main"]]'
json_eq 'd["suspects"][0]["id"]' 0xe0c2aaa8
obj_ret=$(json_get 'd["suspects"][0]["path"][-1]["retained_bytes"] if d["suspects"][0]["path"][-1]["id"] == "0xe0c2aaa8" else [e["retained_bytes"] for e in d["suspects"][0]["path"] if e["id"] == "0xe0c2aaa8"][0]')
run top --json --no-timing --top 1 "$jdk"
json_eq 'd["objects"][0]["id"]' 0xe0c2aaa8
json_eq 'd["objects"][0]["retained"]' "$obj_ret"
run show --json --no-timing "$jdk" 0xe0c2aaa8
expect_rc 0
json_eq 'd["object"]["retained"]' "$obj_ret"
json_eq 'd["object"]["dominator"]' null
run show --no-timing "$jdk" 0xe0c2aaa8
expect_out "^retained size: ${obj_ret:0:1}.* \\(visualvm model, as \`leakray top\`\\)$"

# V8: never a synthetic node; one number in analyze, top and show
snap=$V8/test.heapsnapshot
if [ -f "$snap" ]; then
    run analyze --json --no-timing "$snap"
    expect_rc 0
    json_eq 'd["traces"]' '[]'
    json_eq '[(s["kind"], s["class"], s["id"]) for s in d["suspects"]]' '[["object", "TCP", "@3407"]]'
    json_eq 'all(e["class"] != "(synthetic)" for s in d["suspects"] for e in s["path"])' true
    json_eq 'd["suspect_settings"]["model"]' devtools
    ret=$(json_get 'd["suspects"][0]["retained_bytes"]')
    [ "$ret" -gt 1200000000 ] || fail "TCP retains $ret"
    run top --json --no-timing --top 1 "$snap"
    json_eq '[d["objects"][0]["id"], d["objects"][0]["retained"]]' "[\"@3407\", $ret]"
    run show --json --no-timing "$snap" @3407
    json_eq 'd["object"]["retained"]' "$ret"
    run analyze --no-timing "$snap"
    expect_out '^Suspect 1: One instance of TCP occupies 1,280,009,384 bytes \(99\.6 %\)'
    expect_out '^│ GC Root: \(GC roots\) / '
    if grep -q 'Leaking: YES (Accumulation point' "$T/out"; then fail "suspect printed as a leak"; fi
fi

# --fail-on-leak ignores suspects; --fail-on-suspect gates on them
run analyze --no-timing --fail-on-leak "$jdk"
expect_rc 0
run analyze --no-timing --fail-on-suspect 70 "$jdk"
expect_rc 1
run analyze --no-timing --fail-on-suspect 80 "$jdk"
expect_rc 0
# a gate that cannot fire: refused with --no-suspects; below the default share (10 %) the
# share follows it (the dialer's 8.7 % retainer was never a suspect, the gate never fired)
run analyze --no-timing --fail-on-suspect 70 --no-suspects "$jdk"
expect_rc 2
expect_err 'needs the suspects'
run analyze --no-timing --fail-on-suspect 8 --suspect-accumulation 100 "$FIX/dialer.android-hprof"
expect_rc 1
grep -q 'Services' "$T/out" || fail "--fail-on-suspect 8: the 8.7 % retainer is no suspect"
run analyze --no-timing --fail-on-suspect 8 --suspect-share 12 "$FIX/dialer.android-hprof"
expect_err 'below --suspect-share 12'
run analyze --no-timing --suspect-share abc "$jdk"
expect_rc 2
run analyze --no-timing --suspect-share 0 "$jdk"   # every object a suspect: refused
expect_rc 2
run analyze --no-timing --no-suspects "$jdk"
expect_rc 0
if grep -q 'LARGEST RETAINERS' "$T/out"; then fail "--no-suspects still prints the section"; fi

# dupes: Android's class-overhead pseudo-arrays; substring waste
run dupes --json --no-timing --top 100000 "$FIX/dialer.android-hprof"
expect_rc 0
json_eq 'd["arrays"]["n_groups"]' 2
json_eq '[g for g in d["strings"]["groups"] if g["value"] == "WET"][0]["wasted"] < 100' true
run analyze --json --no-timing "$LEAKRAY_SRC/tests/data/browser/browser-final.heapsnapshot.gz"
expect_rc 0
json_eq '[(s["kind"], s["class"], s["id"]) for s in d["suspects"]]' \
    '[["object", "Map", "@43531"], ["object", "Array", "@43527"]]'
run dupes --no-timing "$FIX/dialer.android-hprof"
if grep -q 'staticOverhead\|classOverhead' "$T/out"; then fail "overhead arrays listed as dupes"; fi
echo "suspects_fixtures: ok"
