#!/usr/bin/env bash
# analyze_demo.sh: end-to-end leak analysis of a real HotSpot heap dump. Compiles and runs
# tests/programs/leaks (five known leaks watched by leakcanary.KeyedWeakReference, one watched
# object that is collected), then checks `leakray analyze`: the golden LeakCanary text report
# (ids, paths, timestamps and run-dependent counts normalised), the exact traces in --json
# (leaking objects, path classes and fields, statuses, suspects, groups), --watch/--leaking-if,
# a user library-leak rule, --fail-on-leak, a bad rules file, and `leakray threads`.
set -euo pipefail
: "${LEAKRAY:?}" "${LEAKRAY_SRC:?}" "${LEAKRAY_BUILD:?}"
. "$LEAKRAY_SRC/tests/e2e/need_lib.bash"
need_tools javac java python3
work="$LEAKRAY_BUILD/tmp/analyze_demo"
rm -rf "$work"
mkdir -p "$work/classes"
javac -d "$work/classes" "$LEAKRAY_SRC"/tests/programs/leaks/*.java
java -cp "$work/classes" com.example.LeakDemo "$work/demo.hprof"
dump="$work/demo.hprof"
fail() { echo "FAIL: $*" >&2; exit 1; }

norm() {
    sed -E 's/0x[0-9a-f]+/0xID/g
            s/^Heap dump (file path|timestamp): .*/Heap dump \1: X/
            s/^(Class count|Instance count|Primitive array count|Object array count|Thread count|Heap total bytes): [0-9]+/\1: N/
            /LARGEST RETAINERS$/,/^METADATA$/ s/[0-9][0-9,.]*/N/g'
}

# 1. golden text report
"$LEAKRAY" analyze "$dump" --no-timing > "$work/report.txt"
norm < "$work/report.txt" > "$work/report.norm"
expected="$LEAKRAY_SRC/tests/e2e/expected/analyze/demo.txt"
if [ "${LEAKRAY_UPDATE_GOLDEN:-}" = 1 ]; then cp "$work/report.norm" "$expected"; fi
diff -u "$expected" "$work/report.norm" || fail "text report differs from $expected"

# 2. exact traces through --json
"$LEAKRAY" analyze "$dump" --json --no-timing > "$work/report.json"
python3 - "$work/report.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
def path(t):
    out = []
    for e in t["elements"]:
        s = e["class"] + (" class" if e["type"] == "class" else "")
        if "reference" in e:
            r = e["reference"]
            s += " -%s-> " % r["display"] + ("~" if r["suspect"] else "")
        out.append(s)
    return "".join(out)
traces = {}
for t in d["traces"]:
    key = [l for l in t["elements"][-1]["labels"] if l.startswith("key = ")][0][6:]
    traces[key] = t
# keys 1..8 leak (key-8 only through key-7), key-9 was collected
assert sorted(traces) == ["key-1", "key-2", "key-3", "key-4", "key-5", "key-6", "key-7"], sorted(traces)
assert d["leaking_objects"] == 8 and d["also_retained"] == 1, (d["leaking_objects"], d["also_retained"])
assert d["keyed_weak_references"] == 9 and d["retained_yet_cleared"] == 1
assert d["unreachable_objects"] == []
def tail(key, n):
    return path(traces[key]).split(" -")[-n:]
exp = {
 "key-1": "com.example.EventBus class -LISTENERS-> ~java.util.ArrayList -[0]-> ~com.example.Page$1 -this$0-> ~com.example.Page",
 "key-2": "com.example.EventBus class -LISTENERS-> ~java.util.ArrayList -[1]-> ~com.example.Page$1 -this$0-> ~com.example.Page",
 "key-3": "com.example.PageCache class -CACHE-> ~java.util.HashMap -[\"cached-page\"]-> ~com.example.Page",
 "key-4": "java.lang.Thread -target-> ~com.example.Page$RefreshTask -this$0-> ~com.example.Page",
 "key-5": "java.lang.Thread -threadLocals-> ~java.lang.ThreadLocal$ThreadLocalMap -table-> ~java.lang.ThreadLocal$ThreadLocalMap$Entry[] -[",
 "key-6": "com.example.LocalHolder -<Java Local>-> ~com.example.Page",
 "key-7": "com.example.LeakDemo class -outerHolder-> ~com.example.Page",
}
for k, v in exp.items():
    p = path(traces[k])
    assert v in p, (k, p)
assert path(traces["key-5"]).endswith("java.lang.ThreadLocal$ThreadLocalMap$Entry -value-> ~com.example.Page"), path(traces["key-5"])
# statuses: class objects NO, the path below them UNKNOWN, the leaking object YES
t1 = traces["key-1"]["elements"]
st = [e["leaking"] for e in t1]
assert st[-1] == "YES" and st[-2:-4:-1] == ["UNKNOWN"] * 2, st
cls_ix = [i for i, e in enumerate(t1) if e["class"] == "com.example.EventBus"][0]
assert all(s == "NO" for s in st[:cls_ix + 1]), st
assert t1[cls_ix]["reason"] == "a class is never leaking"
assert t1[0]["reason"].startswith("EventBus\u2193 is not leaking"), t1[0]["reason"]
assert t1[-1]["reason"] == "ObjectWatcher was watching this because com.example.Page received Page#onDestroy() callback"
assert "watchDurationMillis = 19000" in t1[-1]["labels"] and "retainedDurationMillis = 13999" in t1[-1]["labels"]
assert "Anonymous subclass of java.lang.Object" not in t1[-2]["labels"]
# the thread of key-4 is labelled with its name
assert "Thread name: 'refresh-worker'" in traces["key-4"]["elements"][0]["labels"]
# LeakCanary prints no "Also retains" label (raw ids): --verbose only
assert "Also retains" not in " ".join(traces["key-7"]["elements"][-1]["labels"])
# Shark's short description of a local: "LocalHolder.<Java Local>"
g6 = [a for a in d["application_leaks"] if a["signature"] == traces["key-6"]["signature"]][0]
assert g6["short_description"] == "LocalHolder.<Java Local>", g6["short_description"]
# groups: the two listener pages share one signature, everything else is alone
apps = d["application_leaks"]
assert len(apps) == 6 and d["library_leaks"] == [], len(apps)
sizes = sorted(len(a["traces"]) for a in apps)
assert sizes == [1, 1, 1, 1, 1, 2], sizes
g2 = [a for a in apps if len(a["traces"]) == 2][0]
assert traces["key-1"]["signature"] == traces["key-2"]["signature"] == g2["signature"]
assert g2["short_description"] == "EventBus.LISTENERS", g2["short_description"]
assert g2["retained_bytes"] == 2 * traces["key-1"]["elements"][-1]["retained_bytes"]
g7 = [a for a in apps if a["signature"] == traces["key-7"]["signature"]][0]
assert g7["retained_objects"] == 2, g7   # outer page + inner page, counted once
print("json ok")
PY

# 3. --watch / --leaking-if adds the destroyed but unwatched page, never the alive one
"$LEAKRAY" analyze "$dump" --json --no-timing --watch com.example.Page \
    --leaking-if 'destroyed == true && name != "collected"' > "$work/watch.json"
python3 - "$work/watch.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
rule = [t for t in d["traces"] if t["source"] == "rule"]
assert len(rule) == 1, len(rule)
last = rule[0]["elements"][-1]
assert last["reason"] == "Page matches destroyed == true && name != 'collected'", last["reason"]
assert rule[0]["elements"][-2]["reference"]["name"] == "destroyedUnwatched"
assert d["leaking_objects"] == 9
print("watch ok")
PY

# 4. a user library-leak rule turns the cache leak into a library leak
cat > "$work/lib.rules" <<'R'
# the page cache is a known third-party problem
library-leak static com.example.PageCache#CACHE description "PageCache never evicts"
R
"$LEAKRAY" analyze "$dump" --no-timing --rules "$work/lib.rules" > "$work/lib.txt"
grep -q '^1 LIBRARY LEAKS$' "$work/lib.txt" || fail "no library leak"
grep -q '^5 APPLICATION LEAKS$' "$work/lib.txt" || fail "library leak still counted as application leak"
grep -q '^Leak pattern: static field com.example.PageCache#CACHE$' "$work/lib.txt" || fail "pattern"
sig=$(printf 'static field com.example.PageCache#CACHE' | sha1sum | cut -c1-40)
grep -q "^Signature: $sig\$" "$work/lib.txt" || fail "library leak signature is not sha1(pattern)"
grep -q 'Library leak match: static field com.example.PageCache#CACHE' "$work/lib.txt" || fail "match label"

# 5. exit codes: --fail-on-leak -> 1, bad rules -> 3 with file:line
rc=0; "$LEAKRAY" analyze "$dump" --fail-on-leak --no-timing > /dev/null || rc=$?
[ "$rc" = 1 ] || fail "--fail-on-leak exit $rc"
printf 'inspect com.example.Page -> leaking "ok"\ninspect com.example.Page if -> nope\n' > "$work/bad.rules"
rc=0; "$LEAKRAY" analyze "$dump" --rules "$work/bad.rules" 2> "$work/bad.err" > /dev/null || rc=$?
[ "$rc" = 3 ] || fail "bad rules exit $rc"
grep -q "bad.rules:2: " "$work/bad.err" || fail "bad rules message: $(cat "$work/bad.err")"

# 6. threads: the holder thread shows its frames and the page its local holds
"$LEAKRAY" threads "$dump" > "$work/threads.txt"
grep -q '^Thread "local-holder"' "$work/threads.txt" || fail "no local-holder thread"
awk '/^Thread "local-holder"/{f=1;next} /^Thread /{f=0} f' "$work/threads.txt" > "$work/holder.txt"
grep -q 'at com.example.LocalHolder.run(LeakDemo.java:' "$work/holder.txt" || fail "no run() frame"
grep -q 'local com.example.Page 0x' "$work/holder.txt" || fail "no local page"
"$LEAKRAY" threads "$dump" --json | python3 -c '
import json,sys
d=json.load(sys.stdin)
t=[t for t in d["threads"] if t["name"]=="local-holder"][0]
locs=[l for f in t["frames"] for l in f["locals"]]
assert any(l["class"]=="com.example.Page" and l["retained_bytes"]>0 for l in locs), t
print("threads ok")'
echo "analyze_demo: ok"
