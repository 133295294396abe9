#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# diff_class_objects.sh: `diff` names HPROF class objects as `histo` does, `<class objects>`
# (tests/programs/diff/MoreClasses.java loads 24 classes between its two dumps): they were
# the row "(no class)", so 24 classes loaded read "+24 objects with no class".
set -euo pipefail
: "${LEAKRAY:?}" "${LEAKRAY_SRC:?}" "${LEAKRAY_BUILD:?}"
. "$LEAKRAY_SRC/tests/e2e/need_lib.bash"
need_tools javac java python3
work="$LEAKRAY_BUILD/tmp/diff_class_objects"
rm -rf "$work"
mkdir -p "$work/classes"
fail() { echo "FAIL: $*" >&2; exit 1; }
javac -d "$work/classes" "$LEAKRAY_SRC/tests/programs/diff/MoreClasses.java"
java -Xmx64m -cp "$work/classes" MoreClasses "$work/a.hprof" "$work/b.hprof" >/dev/null
rc=0
"$LEAKRAY" diff "$work/a.hprof" "$work/b.hprof" --json --no-timing --top 0 >"$work/d.json" \
    2>"$work/d.err" || rc=$?
[ $rc = 0 ] || fail "diff: exit $rc: $(cat "$work/d.err")"
"$LEAKRAY" histo "$work/b.hprof" --json --no-timing --top 0 >"$work/h.json"
python3 - "$work/d.json" "$work/h.json" <<'PY' || fail "class objects"
import json, sys
d = json.load(open(sys.argv[1]))
h = json.load(open(sys.argv[2]))
rows = {c['name']: c for c in d['classes']}
assert '(no class)' not in rows and '<no class>' not in rows, sorted(rows)[:10]
co = rows['<class objects>']
assert co['count_delta'] >= 24, co
hc = [c for c in h['classes'] if c['name'] == '<class objects>'][0]
assert co['count_b'] == hc['count'], (co, hc)
PY
echo "diff_class_objects: ok"
