#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# suspects.sh: MAT-style leak suspects on a real HotSpot dump with no watched objects.
# tests/programs/audit2/SuspectDump.java plants a static cache (about 55 % of the heap, under
# the class loader), a Session held by a thread's local variable (about 28 %) and a small
# array held by another thread (a few percent). `leakray analyze --json` must report exactly
# the two big ones in "suspects" (never as leak traces), largest first: the class loader
# with its accumulation point (the ArrayList's Object[] under PageStore.CACHE) and the
# thread "session-worker" keeping its locals, attributed to its frame, with the HashMap$Node[]
# table as accumulation point; retained sizes equal to `leakray top` (one number per node);
# never the small one. --fail-on-leak ignores suspects, --fail-on-suspect PCT gates on them,
# --suspect-share / --suspect-accumulation move MAT's thresholds.
set -euo pipefail
: "${LEAKRAY:?}" "${LEAKRAY_SRC:?}" "${LEAKRAY_BUILD:?}"
. "$LEAKRAY_SRC/tests/e2e/need_lib.bash"
need_tools javac java python3
work="$LEAKRAY_BUILD/tmp/suspects"
rm -rf "$work"
mkdir -p "$work/classes"
javac -d "$work/classes" "$LEAKRAY_SRC"/tests/programs/audit2/SuspectDump.java
java -cp "$work/classes" com.example.audit2.SuspectDump "$work/s.hprof"
dump="$work/s.hprof"
fail() { echo "FAIL: $*" >&2; exit 1; }
exit_of() { local rc=0; "$LEAKRAY" analyze "$dump" --no-timing "$@" > /dev/null || rc=$?; echo "$rc"; }

"$LEAKRAY" analyze "$dump" --json --no-timing > "$work/a.json"
"$LEAKRAY" top "$dump" --json --no-timing --top 300 > "$work/top.json"
"$LEAKRAY" analyze "$dump" --no-timing > "$work/a.txt"
[ "$(exit_of --fail-on-leak)" = 0 ] || fail "--fail-on-leak fails on suspects (only leak traces should)"
[ "$(exit_of --fail-on-suspect 50)" = 1 ] || fail "--fail-on-suspect 50: a 55 % suspect must exit 1"
[ "$(exit_of --fail-on-suspect 60)" = 0 ] || fail "--fail-on-suspect 60: no suspect holds 60 %"
[ "$(exit_of --fail-on-suspect 101)" = 2 ] || fail "--fail-on-suspect 101 is a usage error"
grep -q '^0 APPLICATION LEAKS$' "$work/a.txt" || fail "suspects listed as application leaks"
grep -q '^2 LARGEST RETAINERS$' "$work/a.txt" || fail "no LARGEST RETAINERS section with 2 suspects"
grep -q '^Suspect 2: thread session-worker keeps local variables with total size [0-9,]* bytes (2[0-9]\.[0-9] %)' \
    "$work/a.txt" || fail "text: the Session is not attributed to thread session-worker"
grep -q '^Biggest local held in frame: com\.example\.audit2\.Holder\.run(SuspectDump\.java:[0-9]*)$' \
    "$work/a.txt" || fail "text: no frame for the thread's locals"
"$LEAKRAY" analyze "$dump" --json --no-timing --suspect-share 40 > "$work/s40.json"
"$LEAKRAY" analyze "$dump" --json --no-timing --suspect-accumulation 100 > "$work/acc100.json"

python3 - "$work/a.json" "$work/top.json" "$work/s40.json" "$work/acc100.json" <<'PY'
import json, re, sys
d = json.load(open(sys.argv[1]))
top = json.load(open(sys.argv[2]))
s40 = json.load(open(sys.argv[3]))
acc100 = json.load(open(sys.argv[4]))
total = top["reachable_bytes"]
ret = {o["id"]: o for o in top["objects"]}
assert d["mode"] == "suspects", d["mode"]
assert d["traces"] == [] and d["application_leaks"] == [] and d["unreachable_objects"] == []
st = d["suspect_settings"]
assert st["model"] == top["model"] and st["heap_bytes"] == total, (st, top["model"], total)
assert st["share_percent"] == 10 and st["accumulation_percent"] == 70, st
sus = d["suspects"]
assert [s["kind"] for s in sus] == ["object", "thread_locals"], [(s["kind"], s["class"]) for s in sus]

def chain(s):
    out = []
    for e in s["path"]:
        out.append(e["class"] + (" class" if e["type"] == "class" else ""))
        if "reference" in e:
            out.append(" -%s-> " % e["reference"]["name"])
    return "".join(out)

for s in sus:
    # one node, one retained size: every path node in top's first 300 has top's figure
    for e in s["path"]:
        if e["id"] in ret:
            assert ret[e["id"]]["retained"] == e["retained_bytes"], (e, ret[e["id"]])
    assert s["path"][-1]["id"] == s["accumulation_point"]["id"]
    assert s["accumulation_point"]["retained_bytes"] == s["path"][-1]["retained_bytes"]
    assert s["retained_bytes"] > total / 10

# 1. the static cache under the application class loader
s0 = sus[0]
assert s0["class"] == "jdk.internal.loader.ClassLoaders$AppClassLoader", s0["class"]
assert s0["id"] in ret and ret[s0["id"]]["retained"] == s0["retained_bytes"]
assert 50 < s0["heap_percent"] < 62, s0["heap_percent"]
assert s0["accumulation_point"]["class"] == "java.lang.Object[]"
assert s0["accumulation_point"]["retained_bytes"] >= 4000 * 1016
assert re.search(r"com\.example\.audit2\.PageStore class -CACHE-> java\.util\.HashMap .*"
                 r"com\.example\.audit2\.Blob -chunks-> java\.util\.ArrayList "
                 r"-elementData-> java\.lang\.Object\[\]$", chain(s0)), chain(s0)
assert s0["description"].startswith("One instance of jdk.internal.loader.ClassLoaders$AppClassLoader occupies ")
# 2. the Session, held by a local of thread session-worker: attributed to the thread
s1 = sus[1]
assert s1["thread"]["name"] == "session-worker", s1["thread"]
assert re.fullmatch(r"com\.example\.audit2\.Holder\.run\(SuspectDump\.java:\d+\)",
                    s1["thread"]["frame"]), s1["thread"]
assert s1["class"] == "com.example.audit2.Session" and 20 < s1["heap_percent"] < 34, s1
assert s1["accumulation_point"]["class"] == "java.util.HashMap$Node[]", s1["accumulation_point"]
assert s1["accumulation_point"]["retained_bytes"] >= 500 * 4016
assert s1["gc_root"]["kind"] in ("Java frame", "thread object"), s1["gc_root"]
assert s1["description"].startswith("thread session-worker keeps local variables with total size ")
# 3. the small holder (a byte[][] of 60 byte[4000]) is under 10 %: never a suspect
small = [o for o in top["objects"] if o["class"] == "byte[][]" and
         o["retained"] >= 60 * 4016 and o["retained"] < 70 * 4016]
assert len(small) == 1 and small[0]["retained"] < total / 10, small
assert small[0]["id"] not in {e["id"] for s in sus for e in s["path"]}
# thresholds as options
assert [s["class"] for s in s40["suspects"]] == [s0["class"]], s40["suspects"]
assert s40["suspect_settings"]["share_percent"] == 40
for s in acc100["suspects"]:
    assert s["accumulation_point"]["id"] == s["id"], s
print("suspects ok: %.1f%% and %.1f%% reported, byte[][] at %.1f%% not" % (
    s0["heap_percent"], s1["heap_percent"], 100.0 * small[0]["retained"] / total))
PY
echo "suspects: ok"
