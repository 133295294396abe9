#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# held_shapes.sh: objects held in two ways at once (tests/programs/held/HeldShapes.java, one
# dump per mode), where the retained-size verbs must say who really keeps them:
#  - queue: a DelayedWorkQueue (4 MB) held by a static executor and by its worker's frame is
#    an `object` suspect, not "thread pool-1-thread-1 keeps local variables" (Eclipse MAT
#    says the same: the thread does not keep it alone); no thread_locals suspect says more
#    than `threads` gives that thread, here and on openjdk_jdk11_04_x64.hprof.gz;
#  - stale: 20 stale ThreadLocal entries on the GC's pending list (linked by
#    Reference.discovered) are kept by the pool thread's map: `threads`, `top` (also with
#    --model strong) and `show` give the thread their 400 kB, no page is dominated by the GC
#    roots, and `path` to a reference on that list ends at its `show` dominator;
#  - loader: a closed URLClassLoader whose class Plugin is a key of a static HashMap is kept
#    by the JVM through Plugin's link to its loader: `analyze` shows that chain, ending
#    `Plugin.<classloader>` (visited last, so every path Shark finds stays Shark's), where
#    Shark 2.14 lists the loader as unreachable; it retains what it holds, its group what
#    the loader and the class leaking with it hold (the class's statics);
#  - instance: a closed URLClassLoader whose class only an instance in a static list holds:
#    `path --merged` and SQL's distance reach it through the instance's class, as `path`;
#  - tlocal: a thread keeping 8 MB in a ThreadLocal and 64 bytes in a local is an `object`
#    suspect (the thread, accumulated in the byte[]), not "keeps local variables" shown by
#    its 80-byte local (Eclipse MAT descends from the thread to the array);
#  - watched: 300 arrays in a static list, each watched by a KeyedWeakReference (the JVM
#    agent's marks): the list is the suspect, not "300 instances of byte[]".
set -euo pipefail
: "${LEAKRAY:?}" "${LEAKRAY_SRC:?}" "${LEAKRAY_BUILD:?}"
. "$LEAKRAY_SRC/tests/e2e/need_lib.bash"
need_tools javac java python3
work="$LEAKRAY_BUILD/tmp/held_shapes"
rm -rf "$work"
mkdir -p "$work/classes" "$work/plugin"
fail() { echo "FAIL: $*" >&2; exit 1; }
P=$LEAKRAY_SRC/tests/programs/held
javac -d "$work/classes" "$LEAKRAY_SRC"/tests/programs/leaks/KeyedWeakReference.java \
    "$P/HeldShapes.java"
javac -d "$work/plugin" "$P/plugin/Plugin.java"
for m in queue stale tlocal watched; do
    java -cp "$work/classes" com.example.held.HeldShapes "$work/$m.hprof" "$m" > /dev/null
done
for m in loader instance; do
    java -cp "$work/classes" com.example.held.HeldShapes "$work/$m.hprof" "$m" \
        "file:$work/plugin/" > /dev/null
done

# every thread_locals suspect of A.json fits in what B.json (threads) gives its thread
check_locals() {
    python3 - "$1" "$2" <<'PY'
import json, sys
a = json.load(open(sys.argv[1]))
t = {x["serial"]: x["retained_bytes"] for x in json.load(open(sys.argv[2]))["threads"]}
for s in a["suspects"]:
    if s["kind"] == "thread_locals":
        ser = s["thread"]["serial"]
        assert s["retained_bytes"] <= t[ser], (s["description"], t[ser])
PY
}

# queue: held by a static too, so no thread's local
"$LEAKRAY" analyze "$work/queue.hprof" --json --no-timing > "$work/queue.json"
"$LEAKRAY" threads "$work/queue.hprof" --json --no-timing > "$work/queue.threads.json"
python3 - "$work/queue.json" <<'PY' || fail "queue: the suspect is not the DelayedWorkQueue"
import json, sys
s = json.load(open(sys.argv[1]))["suspects"]
assert s and s[0]["kind"] == "object", s[0]["description"]
assert s[0]["class"].endswith("ScheduledThreadPoolExecutor$DelayedWorkQueue"), s[0]["class"]
assert s[0]["retained_bytes"] > 4000000, s[0]["retained_bytes"]
assert not [x for x in s if x["kind"] == "thread_locals"], [x["description"] for x in s]
PY
check_locals "$work/queue.json" "$work/queue.threads.json" ||
    fail "queue: a thread_locals suspect above the thread's own figure"
fx="${LEAKRAY_FIXTURES:-$LEAKRAY_SRC/../shared/fixtures}/hprof/openjdk_jdk11_04_x64.hprof.gz"
if [ -f "$fx" ]; then
    "$LEAKRAY" analyze "$fx" --json --no-timing > "$work/jdk11.json"
    "$LEAKRAY" threads "$fx" --json --no-timing > "$work/jdk11.threads.json"
    grep -q '"kind": "thread_locals"' "$work/jdk11.json" || fail "jdk11: no thread_locals suspect"
    check_locals "$work/jdk11.json" "$work/jdk11.threads.json" ||
        fail "jdk11: main's locals suspect above what threads gives main"
fi

# stale: the entries are on the pending list in this dump (else the case is not tested)
"$LEAKRAY" threads "$work/stale.hprof" --json --no-timing > "$work/stale.threads.json"
"$LEAKRAY" sql "$work/stale.hprof" --json "SELECT
    (SELECT count(*) FROM edges e JOIN objects o ON o.id = e.dst WHERE e.name = 'discovered'
        AND o.class = 'java.lang.ThreadLocal\$ThreadLocalMap\$Entry'),
    (SELECT count(*) FROM objects WHERE class = 'com.example.held.Page'),
    (SELECT count(*) FROM objects WHERE class = 'com.example.held.Page' AND dominator IS NULL),
    (SELECT min(id) FROM objects WHERE class = 'com.example.held.Page')" \
    > "$work/stale.sql.json" || fail "sql on the stale dump"
python3 - "$work/stale.sql.json" "$work/stale.threads.json" > "$work/page.txt" <<'PY' ||
import json, sys
linked, pages, top, first = json.load(open(sys.argv[1]))["results"][0]["rows"][0]
assert linked >= 10, ("entries linked by discovered: the case is not in this dump", linked)
assert pages == 20 and top == 0, ("pages, pages under the GC roots", pages, top)
t = [x for x in json.load(open(sys.argv[2]))["threads"] if x["name"] == "pool-1-thread-1"]
assert t and t[0]["retained_bytes"] >= 20 * 20000, t
print("0x%x" % first)
PY
    fail "stale: $(cat "$work/stale.sql.json")"
"$LEAKRAY" show "$work/stale.hprof" "$(cat "$work/page.txt")" --no-timing > "$work/page.show"
grep -q '^dominator: .*ThreadLocal\$ThreadLocalMap\$Entry' "$work/page.show" ||
    fail "stale: a page's dominator is not its entry: $(cat "$work/page.show")"
# `path` takes the traces' view: no path through the link, and for the entries of
# MethodType's intern set on the list the object before each one is its dominator (`sql`,
# as `show`), if it has one (on the old search, some were reached through another entry's
# discovered)
"$LEAKRAY" sql "$work/stale.hprof" "SELECT DISTINCT o.id, o.dominator FROM edges e
    JOIN objects o ON o.id = e.dst WHERE e.name = 'discovered'
    AND o.class = 'java.lang.invoke.MethodType\$ConcurrentWeakInternSet\$WeakEntry'
    ORDER BY 1" > "$work/listed.txt"
tail -n +2 "$work/listed.txt" > "$work/listed.ids"
# one run for every entry (path takes several ids: one load, one search)
"$LEAKRAY" path "$work/stale.hprof" --ids "$work/listed.ids" --json --no-timing > "$work/p.json"
python3 - "$work/p.json" "$work/listed.ids" <<'PY' || fail "stale: paths to the listed entries"
import json, sys
paths = json.load(open(sys.argv[1]))["paths"]
listed = [l.split() for l in open(sys.argv[2]) if l.strip()]
assert len(paths) == len(listed) >= 10, ("intern-set entries on the list", len(listed))
for d, (i, dom) in zip(paths, listed):
    p = d["path"]
    assert int(d["object"]["id"], 16) == int(i), (d["object"], i)
    assert not [h for h in p if h.get("name") == "discovered"], (i, p)
    assert len(p) >= 2 and (dom == "NULL" or int(p[-2]["id"], 16) == int(dom)), (i, dom, p[-2:])
PY
# the textbook model skips the link too: the thread is the biggest object there as well
"$LEAKRAY" top "$work/stale.hprof" --model strong --top 1 --json --no-timing > "$work/strong.json"
python3 - "$work/strong.json" <<'PY' || fail "stale: top --model strong: $(cat "$work/strong.json")"
import json, sys
o = json.load(open(sys.argv[1]))["objects"][0]
assert o["class"] == "java.lang.Thread" and o["retained"] >= 400000, o
PY
"$LEAKRAY" analyze "$work/stale.hprof" --json --no-timing > "$work/stale.json"
python3 - "$work/stale.json" <<'PY' || fail "stale: the pool thread is not the largest retainer"
import json, sys
s = json.load(open(sys.argv[1]))["suspects"]
assert s[0]["class"] == "java.lang.Thread" and s[0]["retained_bytes"] >= 400000, s[0]
PY
# loader: reachable through its class, and shown so
"$LEAKRAY" analyze "$work/loader.hprof" --no-timing --no-suspects > "$work/loader.txt"
"$LEAKRAY" analyze "$work/loader.hprof" --json --no-timing --no-suspects > "$work/loader.json"
if grep -q '^[1-9][0-9]* UNREACHABLE OBJECTS' "$work/loader.txt"; then
    fail "loader: listed as unreachable: $(cat "$work/loader.txt")"
fi
grep -q '^│    ↓ Plugin\.<classloader>$' "$work/loader.txt" ||
    fail "loader: no Plugin.<classloader> step: $(cat "$work/loader.txt")"
python3 - "$work/loader.json" <<'PY' || fail "loader: $(cat "$work/loader.txt")"
import json, sys
d = json.load(open(sys.argv[1]))
assert len(d["application_leaks"]) == 1 and not d["unreachable_objects"], d["unreachable_objects"]
els = d["traces"][0]["elements"]
assert els[-1]["class"] == "java.net.URLClassLoader", els[-1]["class"]
assert els[-2]["class"] == "Plugin" and els[-2]["reference"]["name"] == "<classloader>", els[-2]
assert any(e["class"] == "java.util.HashMap" for e in els), [e["class"] for e in els]
# the class keeps its loader in the tree behind the sizes too: the loader retains what it
# holds (it read 0 B: the tree left the <classloader> link out); the group retains what its
# leaking objects do, the class leaking with its loader included: the class's 4 MB of
# statics, the loader with them (it read the loader's 3 kB)
assert els[-1].get("retained_bytes", 0) > 0, els[-1]
assert els[-2]["leaking"] == "YES" and els[-2]["retained_bytes"] > 4000000, els[-2]
g = d["application_leaks"][0]
assert g["retained_bytes"] == els[-2]["retained_bytes"], (g["retained_bytes"], els[-2])
PY
# instance: `path --merged` and SQL take the way `path` takes, through the instance's class
"$LEAKRAY" path "$work/instance.hprof" --class java.net.URLClassLoader --merged --json --no-timing \
    > "$work/merged.json"
python3 - "$work/merged.json" <<'PY' || fail "loader: merged paths: $(cat "$work/merged.json")"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["unreachable"] == 0, d["unreachable"]
text = json.dumps(d)
assert '"reference": "implicit", "name": "<class>"' in text and '"name": "<classloader>"' in text
PY
[ "$("$LEAKRAY" sql "$work/instance.hprof" --csv --no-timing \
    "SELECT count(*) FROM objects WHERE class = 'java.net.URLClassLoader' AND distance IS NULL" |
    tail -n 1 | tr -d '\r')" = 0 ] || fail "loader: SQL gives it no distance"
"$LEAKRAY" analyze --json --no-timing "$work/tlocal.hprof" >"$work/tlocal.json"
python3 - "$work/tlocal.json" <<'PY' || fail "tlocal: the thread's ThreadLocal map not the suspect"
import json, sys
s = json.load(open(sys.argv[1]))["suspects"][0]
acc = s.get("accumulation_point") or {}
print("tlocal:", s["kind"], s["description"][:90], acc.get("class"), acc.get("retained_bytes"))
assert s["kind"] != "thread_locals", s["description"]
assert acc.get("class") == "byte[]" and acc.get("retained_bytes", 0) >= 8000000, acc
PY
# the watcher's KeyedWeakReferences are no holders in the suspects' tree (VisualVM's
# references include every referent: the list lost the 3 MB it keeps to "300 instances of
# byte[]")
"$LEAKRAY" analyze --json --no-timing "$work/watched.hprof" >"$work/watched.json" || [ $? = 1 ]
python3 - "$work/watched.json" <<'PY' || fail "watched: the list is not the suspect"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["leaking_objects"] == 300, d["leaking_objects"]
s = d["suspects"][0]
print("watched:", s["kind"], s["description"][:100])
assert s["kind"] != "instances" and s["retained_bytes"] >= 300 * 10000, s["description"]
PY
echo "held_shapes: ok"
