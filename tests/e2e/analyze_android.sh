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
# METADATA as Shark 2.14 prints it for this dump (scripts/shark-peer.sh), line for line: the
# LeakCanary version and process name, the heap total without the class records' tag byte,
# the bitmap lines; only the path, the timestamp (the dump's, where Shark prints the analysis
# time) and the duration differ
sed -n '/^METADATA$/,/^Heap dump file path/p' "$work/dialer.txt" | sed '$d' > "$work/meta.txt"
printf '%s\n' METADATA '' 'Please include this in bug reports and Stack Overflow questions.' '' \
    'Build.VERSION.SDK_INT: 19' 'Build.MANUFACTURER: unknown' 'LeakCanary version: Unknown' \
    'App process name: com.android.dialer' 'Class count: 3571' 'Instance count: 24612' \
    'Primitive array count: 13585' 'Object array count: 1919' 'Thread count: 11' \
    'Heap total bytes: 2283135' 'Bitmap count: 24' 'Bitmap total bytes: 0' \
    'Large bitmap count: 0' 'Large bitmap total bytes: 0' > "$work/meta.want"
diff -u "$work/meta.want" "$work/meta.txt" || fail "dialer METADATA differs from Shark's"
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
# "Also retains leaking object 0x... (android.os.MessageQueue)" is no LeakCanary label: only
# under --verbose
assert not any(l.startswith("Also retains") for l in last["labels"]), last["labels"]
PY
"$LEAKRAY" analyze "$fx/dialer.android-hprof" --json --no-timing --verbose > "$work/dialer-v.json"
"$LEAKRAY" analyze "$fx/dialer.android-hprof" --no-timing --verbose > "$work/dialer-v.txt"
grep -q 'Also retains leaking object 0x[0-9a-f]* (android.os.MessageQueue)$' "$work/dialer-v.txt" ||
    fail "--verbose: no Also retains line"
! grep -q 'Also retains' "$work/dialer.txt" || fail "Also retains printed without --verbose"
python3 - "$work/dialer-v.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
last = d["traces"][0]["elements"][-1]
assert any("(android.os.MessageQueue)" in l for l in last["labels"]), last["labels"]
PY

"$LEAKRAY" analyze "$fx/test-dump.hprof" --no-timing > "$work/td.txt"
grep -q '^0 APPLICATION LEAKS$' "$work/td.txt" || fail "test-dump: suspects listed as leaks"
grep -q '^Suspect [12]: The class Main occupies' "$work/td.txt" || fail "test-dump: no Main suspect"
# Bitmap.dumpData (the dumper's pixel copies, `am dumpheap -b`) is no reference: with the
# mapping naming it, the 1 MB bigArray is retained by Main through DumpedStuff, not a suspect
# of its own through the dumpData buffers
"$LEAKRAY" analyze "$fx/test-dump.hprof" --mapping "$fx/test-dump.map" --json --no-timing \
    > "$work/td-susp.json"
python3 - "$work/td-susp.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
s = d["suspects"]
assert [(x["kind"], x["class"]) for x in s] == [("class", "Main")], [(x["kind"], x["class"]) for x in s]
assert s[0]["retained_bytes"] > 1000000, s[0]
assert s[0]["accumulation_point"]["class"] == "byte[]", s[0]["accumulation_point"]
assert not any("dumpData" in (e.get("reference") or {}).get("name", "") for e in s[0]["path"])
PY
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
    ("l[]", "array", "[0]"),   # Shark leaves array classes obfuscated
    ("DumpedStuff$ObjectTree", "instance", "left"),
    ("DumpedStuff$ObjectTree", "instance", "right"),
    ("DumpedStuff$ObjectTree", "instance", None)], steps
assert t[-1]["reason"] == "DumpedStuff$ObjectTree matches left is null && right is null", t[-1]["reason"]
print("test-dump path ok")
PY
echo "analyze_android: ok"
