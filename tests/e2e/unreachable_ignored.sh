#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# unreachable_ignored.sh: a watched object that only a reference the rules ignore holds (a
# local of thread main: jdk.rules ignores those, as Shark does) is listed among the
# UNREACHABLE OBJECTS as before, but says it is held, and how to see the way (a command that
# runs as printed: the dump named); one that no
# root reaches (garbage in a dump written with live=false) does not.
set -euo pipefail
: "${LEAKRAY:?}" "${LEAKRAY_SRC:?}" "${LEAKRAY_BUILD:?}"
. "$LEAKRAY_SRC/tests/e2e/need_lib.bash"
need_tools javac java python3
work="$LEAKRAY_BUILD/tmp/unreachable_ignored"
rm -rf "$work"
mkdir -p "$work/classes"
fail() { echo "FAIL: $*" >&2; exit 1; }
javac -d "$work/classes" "$LEAKRAY_SRC/tests/programs/held/MainLocals.java"
java -Xmx64m -XX:+UseSerialGC -cp "$work/classes" MainLocals "$work/m.hprof" >/dev/null
"$LEAKRAY" analyze "$work/m.hprof" --json --no-timing --no-suspects \
    --watch 'MainLocals$Order' > "$work/a.json"
"$LEAKRAY" analyze "$work/m.hprof" --no-timing --no-suspects \
    --watch 'MainLocals$Order' > "$work/a.txt"
python3 - "$work/a.json" "$work/a.txt" "$work/m.hprof" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
text = open(sys.argv[2]).read()
dump = sys.argv[3]
u = d["unreachable_objects"]
held = [x["id"] for x in u if x["held_by_ignored_references"]]
gone = [x["id"] for x in u if not x["held_by_ignored_references"]]
assert len(held) == 3 and len(gone) == 1, u
for i in held:
    assert "Held only through references the rules ignore: `leakray path %s %s`" % (dump, i) \
        in text, i
assert "%s %s`" % (dump, gone[0]) not in text
print("ok: 3 held through main's locals, 1 garbage")
PY
# the way the text names: its command, as printed, runs
cmd=$(grep -o -m1 '`leakray path [^`]*`' "$work/a.txt" | tr -d '`')
[ -n "$cmd" ] || fail "no path command in the text"
(cd / && bash -c "\"\$LEAKRAY\" ${cmd#leakray } --no-timing") > "$work/p.txt" ||
    fail "the printed command failed: $cmd"
grep -q 'GC root: Java local variable in thread "main"' "$work/p.txt" ||
    fail "path: $(cat "$work/p.txt")"
echo "unreachable_ignored: ok"
