#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# show_known.sh: `leakray show` on a dump written at test time by
# tests/programs/cli/CliTarget.java. The class is found by name, its statics lead to the
# CliTarget$Known instance, whose int/String/long/double/boolean/char/byte fields must decode
# to the values the program set; the object array MARKERS holds five markers and a null;
# referrers name the static field. Ids are taken from leakray's own output, in every form
# show accepts (hex, decimal).
set -euo pipefail
. "$(dirname "$0")/lib/common.bash"
cli_init show
cli_target_dump

run histo --no-timing --sort name "$DUMP"
expect_rc 0
expect_out '^ +[0-9]+: +1 +[0-9]+  CliTarget\$Known$'
expect_out '^ +[0-9]+: +5 +[0-9]+  CliTarget\$Marker$'

# The class object by name: statics with their values.
run show --no-timing "$DUMP" CliTarget
expect_rc 0
expect_out '^kind: +class$'
expect_out '^  int +STATIC_INT = 1234$'
expect_out '^  object +KNOWN = 0x[0-9a-f]+ CliTarget\$Known$'
known=$(sed -nE 's/^  object +KNOWN = (0x[0-9a-f]+) .*/\1/p' "$T/out")
markers=$(sed -nE 's/^  object +MARKERS = (0x[0-9a-f]+) .*/\1/p' "$T/out")
[ -n "$known" ] && [ -n "$markers" ] || fail "statics KNOWN/MARKERS not listed"

run show --no-timing "$DUMP" "$known"
expect_rc 0
expect_out "^$known CliTarget\\\$Known$"
expect_out '^  int +count = 42$'
expect_out '^  long +big = 1234567890123$'
expect_out '^  object +name = 0x[0-9a-f]+ java\.lang\.String "leakray-known"$'
expect_out '^  double +ratio = 0\.5$'
expect_out '^  boolean +flag = true$'
expect_out "^  char +letter = 'Z'$"
expect_out '^  byte +small = -7$'
expect_out '^  object +next = null$'
expect_out '^referrers \(1\):$'
expect_out '^  0x[0-9a-f]+ class CliTarget  \.KNOWN \(static\)$'

# Same object by decimal id, as JSON.
run show --json --no-timing "$DUMP" "$((known))"
expect_rc 0
json_eq 'd["object"]["id"]' "$known"
json_eq 'd["object"]["class"]' 'CliTarget$Known'
json_eq 'd["object"]["kind"]' instance
json_eq '{f["name"]: f["value"] for f in d["object"]["fields"] if f["type"] != "object"}' \
    '{"small": -7, "letter": "Z", "flag": true, "ratio": 0.5, "big": 1234567890123, "count": 42}'
json_eq '[f["string"] for f in d["object"]["fields"] if f["name"] == "name"]' '["leakray-known"]'
json_eq '[f["value"] for f in d["object"]["fields"] if f["name"] == "next"]' '[null]'
json_eq '[(r["class"], r["edge"], r["name"]) for r in d["object"]["referrers"]]' \
    '[["class CliTarget", "static", "KNOWN"]]'
numbers=$(json_get '[f["value"] for f in d["object"]["fields"] if f["name"] == "numbers"][0]')

# The int[] {7, 8, 9} and the Object[6] of markers.
run show --json --no-timing "$DUMP" "$numbers"
expect_rc 0
json_eq 'd["object"]["array"]' '{"element_type": "int", "length": 3, "contents_available": true, "elements": [7, 8, 9]}'
run show --no-timing "$DUMP" "$markers"
expect_rc 0
expect_out '^length: +6 \(object elements\)$'
[ "$(grep -cE '^  \[[0-4]\] 0x[0-9a-f]+ CliTarget\$Marker$' "$T/out")" = 5 ] ||
    fail "expected 5 markers in MARKERS"
expect_out '^  \[5\] null$'
run show --no-timing --limit 2 "$DUMP" "$markers"
expect_out '^  \.\.\. 4 more$'

# An object whose class declares no field of its own (ReferenceQueue$Null): every field it
# shows is inherited, and the header says from where before the first one.
wr=$("$LEAKRAY" instances --json --no-timing "$DUMP" 'java.lang.ref.ReferenceQueue$Null' |
    python3 -c 'import json, sys; print(json.load(sys.stdin)["instances"][0]["id"])')
run show --no-timing "$DUMP" "$wr"
expect_rc 0
grep -A1 '^fields (' "$T/out" | grep -q '^  -- inherited from java.lang.ref.ReferenceQueue$' ||
    fail "ReferenceQueue\$Null: no 'inherited from java.lang.ref.ReferenceQueue' before its fields"

# Unknown ids and classes are "not found": exit 2, JSON code not_found.
run show "$DUMP" 0x1
expect_rc 2
expect_err "no object with id 0x1"
run show --json "$DUMP" com.example.NoSuchClass
expect_rc 2
json_eq 'd["error"]["code"]' not_found
echo "show_known: ok ($known)"
