#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# histo_golden.sh: `leakray histo --no-timing` on a real HotSpot dump is byte-identical to
# tests/cli/expected/ (text and JSON), the Total line equals the sum of the rows, the sort
# orders hold, and --top keeps the total over all classes.
set -euo pipefail
. "$(dirname "$0")/lib/common.bash"
cli_init histo
cli_fixtures
f=$FIX/sun_jdk6_18_x64.hprof

run histo --no-timing "$f"
expect_rc 0
golden histo_sun_jdk6_18_x64.txt
[ ! -s "$T/err" ] || fail "stderr not empty without a TTY"
# Numbers carry thousands separators; the rows add up to the Total line.
expect_out '^Total +[0-9]{1,3}(,[0-9]{3})+ +[0-9]{1,3}(,[0-9]{3})+  \([0-9]+ classes\)$'
awk '{gsub(",", "")} $1 ~ /^[0-9]+:$/ {n += $2; b += $3} $1 == "Total" {tn = $2; tb = $3}
     END {if (n != tn || b != tb) {print "rows " n "/" b " vs total " tn "/" tb; exit 1}}' \
    "$T/out" || fail "rows do not add up to the Total line"
cp "$T/out" "$T/full.txt"

run histo --no-timing --json --top 5 "$f"
expect_rc 0
golden histo_sun_jdk6_18_x64_top5.json
json_eq 'len(d["classes"])' 5
json_eq 'd["total"]["count"]' "$(awk '{gsub(",", "")} $1 == "Total" {print $2}' "$T/full.txt")"
json_eq 'd["total"]["shallow"]' "$(awk '{gsub(",", "")} $1 == "Total" {print $3}' "$T/full.txt")"
json_eq '"timing" in d' false

# Orders: shallow descending (default), count descending, name ascending; ties by name.
run histo --no-timing --json "$f"
json_eq 'all((a["shallow"], b["name"]) >= (b["shallow"], a["name"]) for a, b in zip(d["classes"], d["classes"][1:]))' true
run histo --no-timing --json --sort count "$f"
json_eq 'all((a["count"], b["name"]) >= (b["count"], a["name"]) for a, b in zip(d["classes"], d["classes"][1:]))' true
run histo --no-timing --json --sort name "$f"
json_eq '[c["name"] for c in d["classes"]] == sorted(c["name"] for c in d["classes"])' true
json_eq 'd["total"]["classes"] == len(d["classes"])' true

# Text reports the load time unless --no-timing; JSON only with --timing (clock readings
# would make every document differ).
run histo --top 1 "$f"
expect_out '^load time: [0-9.]+ m?s$'
run histo --json --top 1 "$f"
json_eq '"timing" in d' false
run histo --json --timing --top 1 "$f"
json_eq 'd["timing"]["load_ms"] >= 0' true
run histo --json --timing --no-timing --top 1 "$f"
expect_rc 2

# --heap on a dump without heap tags is "not found" (exit 2) and lists no heaps.
run histo --heap app "$f"
expect_rc 2
expect_err "no heap named 'app'"
echo "histo_golden: ok"
