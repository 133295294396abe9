#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# rules_shadowed_fields.sh: a rule's field is the one its class declares, not a subclass's of
# the same name, and boxed values compare as values. A HotSpot dump of
# tests/programs/android/shadow/ShadowLeak.java (stand-ins for Android's classes): an app's
# BaseActivity declares its own mDestroyed, left false. Shark reads
# Activity.mDestroyed: 5 destroyed activities in a list, a view of a sixth; android.rules read the subclass's field
# and found 2 (the plain ones), and a View whose class declares its own mContext read as no
# view of a destroyed activity. `Activity#mDestroyed` names the declaring class on later
# steps of a path. Conditions: --leaking-if/--where on Base read Base.closed (6), a Boolean
# field is true only when TRUE (it was true for Boolean.FALSE too, and `== true` matched
# none), `count > 5` compares an Integer's value, decimals and chars compare.
set -euo pipefail
: "${LEAKRAY:?}" "${LEAKRAY_SRC:?}" "${LEAKRAY_BUILD:?}"
. "$LEAKRAY_SRC/tests/e2e/need_lib.bash"
need_tools javac java python3
work="$LEAKRAY_BUILD/tmp/rules_shadowed_fields"
rm -rf "$work"
mkdir -p "$work/classes"
fail() { echo "FAIL: $*" >&2; exit 1; }
P=$LEAKRAY_SRC/tests/programs/android
javac -d "$work/classes" "$P/shadow/ShadowLeak.java" "$P/android/os/Build.java" \
    "$P/android/app/Activity.java" "$P/android/view/View.java"
java -cp "$work/classes" ShadowLeak "$work/s.hprof"
d=$work/s.hprof
"$LEAKRAY" analyze "$d" --json --no-timing --no-suspects >"$work/an.json" || [ $? = 1 ]
python3 - "$work/an.json" <<'PY' || fail "destroyed activities of a class that shadows mDestroyed"
import json, sys
d = json.load(open(sys.argv[1]))
ends = sorted(t["elements"][-1]["class"] for t in d["traces"])
# the view is a leaking object (its activity, behind it, is no trace of its own: Shark's)
want = sorted(["android.app.Activity"] * 2 + ["ShadowLeak$MainActivity"] * 3 +
              ["ShadowLeak$BadgeView"])
assert ends == want, ends
for t in d["traces"]:
    last = t["elements"][-1]
    assert last["leaking"] == "YES", last
    if last["class"] == "ShadowLeak$BadgeView":
        assert last["reason"] == "View.mContext references a destroyed activity", last
PY
count() { # EXPECTED CLASS EXPR: `instances CLASS --where EXPR` finds EXPECTED objects
    local n
    n=$("$LEAKRAY" instances "$d" "$2" --subclasses --where "$3" --json --no-timing |
        python3 -c 'import json, sys; print(len(json.load(sys.stdin)["instances"]))')
    [ "$n" = "$1" ] || fail "$2 where $3: $n, want $1"
}
count 6 'ShadowLeak$Base' 'closed'
count 4 'ShadowLeak$Task' 'closed'
count 7 'ShadowLeak$Task' 'done'
count 7 'ShadowLeak$Task' 'done == true'
count 1 'ShadowLeak$Task' 'done == false'
count 2 'ShadowLeak$Task' 'done is null'
count 8 'ShadowLeak$Task' 'done is not null'
count 4 'ShadowLeak$Task' 'count > 5'
count 4 'ShadowLeak$Task' 'count.value > 5'
count 4 'ShadowLeak$Task' 'weight > 2.5'
count 3 'ShadowLeak$Task' 'grade == "x"'
count 3 'ShadowLeak$Task' 'grade == 120'
count 6 'android.app.Activity' 'mDestroyed'
count 0 'ShadowLeak$BaseActivity' 'mDestroyed'
count 4 'ShadowLeak$BaseActivity' 'Activity#mDestroyed'
leaks() { # EXPECTED EXPR: the Tasks --watch Task --leaking-if EXPR finds leaking
    local n
    n=$("$LEAKRAY" analyze "$d" --watch 'ShadowLeak$Task' --leaking-if "$2" --json \
        --no-timing --no-suspects | python3 -c 'import json, sys
d = json.load(sys.stdin)
print(sum(t["elements"][-1]["class"] == "ShadowLeak$Task" for t in d["traces"]))') || true
    [ "$n" = "$1" ] || fail "--leaking-if $2: $n leaking objects, want $1"
}
leaks 7 'done'
leaks 7 'done == true'
leaks 6 'Base#closed'
echo "rules_shadowed_fields: ok"
