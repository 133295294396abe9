#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# android_views.sh: a view hierarchy of a destroyed activity is one leak whose trace runs to
# the activity, as Shark's: every View of it reads Leaking: YES, but only its root (no parent)
# is a leaking object (the `find-if` of android.rules' View inspector). A HotSpot dump of
# tests/programs/android/ViewLeak.java (stand-ins for Android's classes, in their packages,
# so android.rules applies): a ViewGroup and two child Views, one child in a static list.
# Before, each child View was a leaking object and the trace stopped at it, the activity
# only "also retained".
# Views whose context wraps the destroyed activity (ThemedViewLeak.java: a ContextThemeWrapper,
# as AppCompat and dialogs inflate with) are the same leak to Shark: the inspector unwraps
# mContext. They read Leaking: NO (an attached dialog view) or UNKNOWN, the ~~~ fell on
# View.mContext instead of the app's static, and each got a signature of its own. A wrapper
# says what it wraps through wrappers of wrappers, as Shark's CONTEXT_WRAPPER inspector; a
# reason two rules give is said once.
set -euo pipefail
: "${LEAKRAY:?}" "${LEAKRAY_SRC:?}" "${LEAKRAY_BUILD:?}"
. "$LEAKRAY_SRC/tests/e2e/need_lib.bash"
need_tools javac java python3
work="$LEAKRAY_BUILD/tmp/android_views"
rm -rf "$work"
mkdir -p "$work/classes"
fail() { echo "FAIL: $*" >&2; exit 1; }
P=$LEAKRAY_SRC/tests/programs/android
javac -d "$work/classes" "$P/ViewLeak.java" "$P/android/os/Build.java" \
    "$P/android/app/Activity.java" "$P/android/view/View.java" "$P/android/view/ViewGroup.java"
java -cp "$work/classes" ViewLeak "$work/views.hprof"
"$LEAKRAY" analyze "$work/views.hprof" --json --no-timing --no-suspects >"$work/an.json" ||
    [ $? = 1 ]
python3 - "$work/an.json" <<'PY' || fail "the view hierarchy is not one leak ending at the activity"
import json, sys
d = json.load(open(sys.argv[1]))
ends = sorted(t["elements"][-1]["class"] for t in d["traces"])
assert d["leaking_objects"] == 2 and ends == ["android.app.Activity", "android.view.ViewGroup"], ends
assert len(d["application_leaks"]) == 1 and len(d["application_leaks"][0]["traces"]) == 2
act = [t for t in d["traces"] if t["elements"][-1]["class"] == "android.app.Activity"][0]
view = act["elements"][-2]
assert view["class"] == "android.view.View" and view["leaking"] == "YES", view
assert view["reason"] == "View.mContext references a destroyed activity", view["reason"]
root = [t for t in d["traces"] if t["elements"][-1]["class"] == "android.view.ViewGroup"][0]
assert "View not part of a window view hierarchy" in root["elements"][-1]["labels"], root
PY
# sanitize keeps the build's strings (Build.MANUFACTURER: the library-leak rules match on it;
# blanked, a manufacturer's framework leak became an application leak of another signature)
"$LEAKRAY" strip --mode sanitize --json --no-timing -o "$work/san.hprof" "$work/views.hprof" \
    >"$work/san.json"
python3 -c 'import json,sys; sys.exit(0 if json.load(open(sys.argv[1]))["arrays_zeroed"] > 100 else 1)' \
    "$work/san.json" || fail "sanitize zeroed nothing"
"$LEAKRAY" analyze --no-suspects --no-timing "$work/san.hprof" >"$work/san.txt" || [ $? = 1 ]
grep -q "^Build.MANUFACTURER: leakray$" "$work/san.txt" ||
    fail "sanitize blanked Build.MANUFACTURER: $(grep MANUFACTURER "$work/san.txt")"
javac -d "$work/classes" -cp "$work/classes" "$P/ThemedViewLeak.java" \
    "$P/android/content/ContextWrapper.java" "$P/android/view/ContextThemeWrapper.java" \
    "$P/android/view/ViewRootImpl.java"
java -cp "$work/classes" ThemedViewLeak "$work/themed.hprof"
"$LEAKRAY" analyze "$work/themed.hprof" --json --no-timing --no-suspects >"$work/th.json" ||
    [ $? = 1 ]
python3 - "$work/th.json" <<'PY' || fail "views on a wrapped destroyed activity"
import json, sys
d = json.load(open(sys.argv[1]))
assert len(d["application_leaks"]) == 4, [g["short_description"] for g in d["application_leaks"]]
views = {}
for t in d["traces"]:
    end = t["elements"][-1]
    holder = t["elements"][-2]["reference"]["display"]
    if holder == "wrapper":
        # a wrapper of a wrapper of a destroyed activity is the leak (Shark unwraps mBase)
        assert end["class"] == "android.view.ContextThemeWrapper", end["class"]
        assert end["reason"] == "ContextThemeWrapper wraps an Activity with Activity.mDestroyed true", end
        continue
    if holder == "last":
        w = t["elements"][-2]
        assert "ThemedViewLeak$PlainWrapper does not wrap a known Android context" in w["labels"], w
        continue
    assert end["class"] == "android.view.View", end["class"]
    assert end["leaking"] == "YES", end
    assert end["reason"] == "View.mContext references a destroyed activity", end["reason"]
    holder = t["elements"][-2]
    views[holder["reference"]["owner"] + "." + holder["reference"]["display"]] = (t, end)
t, end = views["ThemedViewLeak$Tracker.lastDialog"]
assert t["elements"][-2]["reference"]["suspect"], "the app's static is the likely cause"
assert "View is part of a window view hierarchy" in end["labels"], end["labels"]
assert "View.mAttachInfo is not null (view attached)" in end["labels"], end["labels"]
assert "ArrayList.[0]" in views, list(views)
PY
# a rule given twice (a user's copy of a shipped one) says its reason once, as Shark's sets do
grep '^inspect android.app.Activity if mDestroyed == true' "$LEAKRAY_SRC/rules/android.rules" \
    >"$work/copy.rules"
[ -s "$work/copy.rules" ] || fail "android.rules has no Activity#mDestroyed inspector"
"$LEAKRAY" analyze "$work/themed.hprof" --no-timing --no-suspects --rules "$work/copy.rules" \
    >"$work/copy.txt" || [ $? = 1 ]
grep -q "Leaking: YES (Activity#mDestroyed is true)$" "$work/copy.txt" ||
    fail "a reason given twice: $(grep -m1 'Activity#mDestroyed is true' "$work/copy.txt")"
echo "android_views: ok"
