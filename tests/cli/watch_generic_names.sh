#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# watch_generic_names.sh: `analyze --watch` takes a generic class name as it takes any other
# (Swift's `Swift.Array<MyApp.Item>`, C++'s `Box<Item>`): it was written bare into the rule
# and refused ("unexpected '<' at end of rule"), in the CLI and in lr_analyze alike. A
# labelled object converted to a V8 snapshot is named by its class, not its label.
set -euo pipefail
. "$(dirname "$0")/lib/common.bash"
cli_init watch-generic-names
cat >"$T/g.jsonl" <<'EOT'
{"leakray_graph": 1, "format": "swift-scan"}
{"class": 1, "name": "Swift.Array<MyApp.Item>"}
{"class": 2, "name": "Box<Item>"}
{"class": 3, "name": "AppDelegate"}
{"node": 1, "class": 3, "size": 32}
{"node": 2, "class": 2, "size": 40}
{"node": 3, "class": 1, "size": 64}
{"edge": [1, 2], "name": "box"}
{"edge": [2, 3], "name": "items"}
{"root": 1, "kind": "global"}
EOT
for cls in 'Box<Item>' 'Swift.Array<MyApp.Item>'; do
    run analyze "$T/g.jsonl" --watch "$cls" --json --no-timing --no-suspects
    expect_rc 0
    json_eq '[t["elements"][-1]["class"] for t in d["traces"]]' "[\"$cls\"]"
done
# converted to a V8 snapshot, objects keep their class as V8's name (their label had taken
# it: DevTools listed a class "main", and --watch of the class found nothing)
printf '{"leakray_graph": 1}\n{"class": 1, "name": "Window"}\n{"node": 1, "class": 1, "size": 8, "label": "main"}\n{"root": 1, "kind": "global"}\n' \
    >"$T/label.jsonl"
run convert "$T/label.jsonl" -o "$T/label.heapsnapshot"
expect_rc 0
run histo "$T/label.heapsnapshot" --json --no-timing
json_eq '[c["name"] for c in d["classes"] if c["count"]]' '["Window"]'
echo "watch_generic_names: ok"
