#!/usr/bin/env bash
# analyze_android.sh: `leakray analyze` on the real Android fixtures. dialer.android-hprof
# (Dalvik, API 19): android.rules load, Build facts are read, the SERVICE inspector finds
# CallLogNotificationsService (absent from ActivityThread.mServices; Shark's signature and
# CONTEXT_FIELD labels), and the MessageQueue inspector's quitting queue is the second leaking
# object, retained by that service. test-dump.hprof (ART, R8
# obfuscated) with --mapping: names are deobfuscated and ahat's documented GC-root path to
# gcPathArray[2].left.right (Main.stuff, .gcPathArray, [2], .left, .right) is found; the trace
# numbers array entries among the non-null ones as Shark does, so gcPathArray[2] reads `[0]`
# (entries 0 and 1 are null).
set -euo pipefail
: "${LEAKRAY:?}" "${LEAKRAY_SRC:?}" "${LEAKRAY_BUILD:?}"
fx="${LEAKRAY_FIXTURES:-$LEAKRAY_SRC/../shared/fixtures}/hprof"
if [ ! -f "$fx/dialer.android-hprof" ] || [ ! -f "$fx/test-dump.hprof" ]; then
    if [ "${CI:-}" = true ]; then echo "FAIL: fixtures missing in $fx" >&2; exit 1; fi
    echo "SKIP: fixtures not found in $fx"
    exit 77
fi
command -v python3 >/dev/null || { echo "SKIP: python3 not installed"; exit 77; }
work="$LEAKRAY_BUILD/tmp/analyze_android"
rm -rf "$work"
mkdir -p "$work"
fail() { echo "FAIL: $*" >&2; exit 1; }

"$LEAKRAY" analyze "$fx/dialer.android-hprof" --no-timing > "$work/dialer.txt"
grep -q '^Build.VERSION.SDK_INT: 19$' "$work/dialer.txt" || fail "SDK_INT not read"
grep -q '^1 APPLICATION LEAKS$' "$work/dialer.txt" || fail "dialer leak count"
grep -q '╰→ com.android.dialer.calllog.CallLogNotificationsService instance$' "$work/dialer.txt" ||
    fail "no service leak"
grep -q 'Leaking: YES (Service not held by ActivityThread)' "$work/dialer.txt" || fail "SERVICE"
grep -q '^Signature: 801527dad9428812b57e83f3d2dd3e966fa99c91$' "$work/dialer.txt" ||
    fail "signature differs from Shark's"
grep -q '│    mContext instance of com.android.dialer.calllog.CallLogNotificationsService$' \
    "$work/dialer.txt" || fail "CONTEXT_FIELD label"
grep -q '↓ static DefaultVoicemailNotifier.sInstance' "$work/dialer.txt" || fail "dialer path"
"$LEAKRAY" analyze "$fx/dialer.android-hprof" --json --no-timing > "$work/dialer.json"
python3 - "$work/dialer.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["build"]["sdk_int"] == 19 and d["build"]["android"], d["build"]
assert d["leaking_objects"] == 2 and d["also_retained"] == 1, (d["leaking_objects"], d["also_retained"])
last = d["traces"][0]["elements"][-1]
assert last["labels"][:2] == ["mApplication instance of com.android.dialer.DialerApplication",
                              "mBase instance of android.app.ContextImpl"], last["labels"]
assert any("(android.os.MessageQueue)" in l for l in last["labels"]), last["labels"]
PY

"$LEAKRAY" analyze "$fx/test-dump.hprof" --no-timing > "$work/td.txt"
grep -q 'Leaking objects: leak suspects' "$work/td.txt" || fail "test-dump suspects mode"
"$LEAKRAY" analyze "$fx/test-dump.hprof" --mapping "$fx/test-dump.map" --json --no-timing \
    --watch 'DumpedStuff$ObjectTree' --leaking-if 'left is null && right is null' > "$work/td.json"
python3 - "$work/td.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert len(d["traces"]) == 1, len(d["traces"])
t = d["traces"][0]["elements"]
steps = [(e["class"], e["type"], e.get("reference", {}).get("display")) for e in t]
assert steps == [
    ("Main", "class", "stuff"),
    ("DumpedStuff", "instance", "gcPathArray"),
    ("DumpedStuff$ObjectTree[]", "array", "[0]"),
    ("DumpedStuff$ObjectTree", "instance", "left"),
    ("DumpedStuff$ObjectTree", "instance", "right"),
    ("DumpedStuff$ObjectTree", "instance", None)], steps
assert t[-1]["reason"] == "DumpedStuff$ObjectTree matches left is null && right is null", t[-1]["reason"]
print("test-dump path ok")
PY
echo "analyze_android: ok"
