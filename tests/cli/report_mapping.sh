#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# report_mapping.sh: `report --mapping` lists classes as histo and top do, arrays of mapped
# classes included (`DumpedStuff$ObjectTree[]`, not the obfuscated `l[]`), in its Classes
# table, its class treemap and its biggest objects, while its traces stay analyze's (whose
# arrays keep their obfuscated names, as Shark's traces do: same signatures).
set -euo pipefail
. "$(dirname "$0")/lib/common.bash"
cli_init report-mapping
cli_fixtures
command -v python3 >/dev/null || skip "no python3"
dump=$FIX/test-dump.hprof
map=$FIX/test-dump.map

run histo --json --no-timing --mapping "$map" "$dump"
expect_rc 0
cp "$T/out" "$T/histo.json"
run analyze --json --no-timing --mapping "$map" "$dump"
cp "$T/out" "$T/analyze.json"
run report --no-timing --format json --mapping "$map" -o "$T/model.json" "$dump"
expect_rc 0
python3 - "$T/histo.json" "$T/model.json" "$T/analyze.json" <<'PY' || fail "report --mapping names classes otherwise than histo"
import json, sys
h = {c["name"] for c in json.load(open(sys.argv[1]))["classes"]}
m = json.load(open(sys.argv[2]))
a = json.load(open(sys.argv[3]))
assert "DumpedStuff$ObjectTree[]" in h, "histo has no DumpedStuff$ObjectTree[]: the check needs it"
names = [c["name"] for c in m["classes"]]
assert "DumpedStuff$ObjectTree[]" in names, "no DumpedStuff$ObjectTree[] in the Classes table"
odd = [n for n in names if n not in h]
assert not odd, "classes histo does not list: %r" % odd[:5]
tree = {row[1] for row in m["tree"]["classes"]}
assert "l[]" not in tree, "the class treemap lists l[]"
assert [t["signature"] for t in m["traces"]] == [t["signature"] for t in a["traces"]][:len(m["traces"])]
PY
echo "ok: report --mapping lists array classes by their clear names, traces as analyze's"
