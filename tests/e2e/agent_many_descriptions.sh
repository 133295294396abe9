#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# agent_many_descriptions.sh: each object watched with its own short description keeps it to
# the report. tests/programs/agent/ManyDescriptions.java watches and keeps 40 objects with 40
# distinct descriptions, all numbered by AppWatcher, past the first sizes of its table of
# numbered descriptions (it grows as they come): the report has 40 traces, and trace i of
# object `order i` reads "because order i cancelled", none lost or taken from another.
set -euo pipefail
: "${LEAKRAY:?}" "${LEAKRAY_SRC:?}" "${LEAKRAY_BUILD:?}"
work="$LEAKRAY_BUILD/tmp/agent_many_descriptions"
# shellcheck source=agent_lib.bash
. "$LEAKRAY_SRC/tests/e2e/agent_lib.bash"
agent_setup
javac -d "$work/classes" -cp "$agent_jar" "$LEAKRAY_SRC/tests/programs/agent/ManyDescriptions.java"
java -Xmx64m "-agentpath:$agent_so=dump-dir=$work/d,delay-ms=300,threshold=40,quiet,rules=none" \
    -cp "$agent_jar:$work/classes" agent.ManyDescriptions 1500 > "$work/out" 2> "$work/err" ||
    fail "the JVM failed: $(cat "$work/err")"
agent_wait "$work/d"
json=$(ls "$work"/d/leakray-*.json)
python3 - "$json" "$LEAKRAY" "$(ls "$work"/d/leakray-*.hprof)" <<'PY' ||
import json, subprocess, sys
d = json.load(open(sys.argv[1]))
tr = [t for t in d["traces"] if t["class"] == "agent.ManyDescriptions$Order"]
assert len(tr) == 40, "%d traces of Order, not 40" % len(tr)
seen = set()
for t in tr:
    # the object's own id field, read from the dump, against its description
    oid = t["leaking_object"]
    out = subprocess.run([sys.argv[2], "show", "--json", sys.argv[3], oid],
                         capture_output=True, text=True, check=True).stdout
    fields = {f["name"]: f.get("value") for f in json.loads(out)["object"]["fields"]}
    want = "ObjectWatcher was watching this because order %s cancelled" % fields["id"]
    got = t["elements"][-1]["reason"]
    assert got == want, (oid, got, want)
    seen.add(fields["id"])
assert len(seen) == 40, seen
print("agent_many_descriptions: ok (40 objects, each with its own description)")
PY
    fail "the report does not give each object its own description"
