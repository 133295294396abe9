#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# loader_leak_size.sh: what a class loader leak costs, on a real HotSpot dump. Redeploy.java
# deploys webapp/App.java twice in mode "instance" (each deploy leaves an App in a
# ThreadLocal of the pool's worker, then its URLClassLoader is closed) and once clean. Each
# kept loader's App class holds a 1 MB static; the path to the loader runs through that
# class (App instance -> <class> -> App class -> <classloader> -> loader), and the class is
# Leaking: YES with its loader. The loader cannot dominate a class an instance also reaches,
# so "bytes retained by leaking objects" was the loader's few kilobytes (3.4 kB for a 303 kB
# webapp). It must cover every object the traces mark leaking: at least the two megabytes,
# covering what the group's App classes retain (more than the sum of the loaders), in
# the text, the JSON, and the store.
# Then twelve deploys in mode "listener": twelve loaders, each keeping its App class (1 MB
# of statics, 7 % of the heap each) through a listener in the container's static list. The
# VisualVM tree counts a class's statics under no holder (classes pass nothing up), so the
# suspects saw no object over the share and printed none for 92 % of the heap: they must name
# the twelve App classes together, with the path through Redeploy.LISTENERS.
set -euo pipefail
: "${LEAKRAY:?}" "${LEAKRAY_SRC:?}" "${LEAKRAY_BUILD:?}"
. "$LEAKRAY_SRC/tests/e2e/need_lib.bash"
need_tools javac java python3
work="$LEAKRAY_BUILD/tmp/loader_leak_size"
rm -rf "$work"
mkdir -p "$work/classes" "$work/webapp"
prog="$LEAKRAY_SRC/tests/programs/redeploy"
javac -d "$work/webapp" "$prog/webapp/App.java"
javac -d "$work/classes" "$prog/Redeploy.java"
java -cp "$work/classes" com.example.redeploy.Redeploy "$work/webapp" "$work/r.hprof" \
    instance instance clean
dump="$work/r.hprof"
fail() { echo "FAIL: $*" >&2; exit 1; }

"$LEAKRAY" analyze "$dump" --json --no-timing --no-suspects \
    --watch java.net.URLClassLoader > "$work/w.json"
"$LEAKRAY" analyze "$dump" --no-timing --no-suspects \
    --watch java.net.URLClassLoader > "$work/w.txt"
"$LEAKRAY" top "$dump" --json --no-timing --top 100 > "$work/top.json"

python3 - "$work/w.json" "$work/top.json" "$work/w.txt" <<'PY'
import json, re, sys
w = json.load(open(sys.argv[1]))
top = json.load(open(sys.argv[2]))
text = open(sys.argv[3]).read()
groups = w["application_leaks"]
assert len(groups) == 1, [g["short_description"] for g in groups]
g = groups[0]
assert len(g["traces"]) == 2, g["traces"]
classes = []
for i in g["traces"]:
    el = w["traces"][i]["elements"]
    cls = el[-2]
    assert cls["class"] == "webapp.App" and cls["type"] == "class", cls
    assert cls["leaking"] == "YES" and cls["reason"] == "its class loader is leaking", cls
    assert el[-1]["class"] == "java.net.URLClassLoader", el[-1]
    # the loader alone is small: its class is held by the App instance too
    assert el[-1]["retained_bytes"] < 1 << 18, el[-1]["retained_bytes"]
    assert cls["retained_bytes"] > 1 << 20, cls["retained_bytes"]
    classes.append(cls)
total = g["retained_bytes"]
assert total >= sum(c["retained_bytes"] for c in classes), (total, classes)
assert total < 3 << 20, total
assert g["retained_objects"] >= sum(c["retained_objects"] for c in classes), g
m = re.search(r"^(\d+) bytes retained by leaking objects$", text, re.M)
assert m and int(m.group(1)) == total, (m and m.group(0), total)
print("ok: class loader leak group retains", total, "bytes (two App classes)")
PY

# the store keeps the same figure
"$LEAKRAY" store ingest --db "$work/s.db" --rules <(echo 'watch java.net.URLClassLoader') \
    --version 1 --at 2026-12-01 "$dump" > /dev/null
want=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["application_leaks"][0]["retained_bytes"])' "$work/w.json")
"$LEAKRAY" store leaks --db "$work/s.db" --json > "$work/leaks.json"
python3 - "$work/leaks.json" "$want" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
want = int(sys.argv[2])
leaks = d["leaks"]
assert len(leaks) == 1, leaks
got = [v for k, v in leaks[0].items() if "retained" in k and isinstance(v, int)]
assert want in got, (want, leaks[0])
print("ok: the store keeps", want)
PY

# mode "thread": a thread of the webapp's own class keeps its loader. On JDK 17 its path runs
# through the thread's inherited access control context, no class of the loader on it: the
# group was what the loader alone retains, without the Worker class's megabyte (JDK 25, whose
# path runs through the thread's class, counted it). A leaking loader's classes are leaking objects wherever the path runs.
java -cp "$work/classes" com.example.redeploy.Redeploy "$work/webapp" "$work/t.hprof" \
    thread clean
"$LEAKRAY" analyze "$work/t.hprof" --json --no-timing --no-suspects \
    --watch java.net.URLClassLoader > "$work/t.json"
python3 - "$work/t.json" <<'PY'
import json, sys
w = json.load(open(sys.argv[1]))
groups = w["application_leaks"]
assert len(groups) == 1 and len(groups[0]["traces"]) == 1, groups
el = w["traces"][groups[0]["traces"][0]]["elements"]
assert el[0]["class"] == "webapp.App$Worker", el[0]
assert el[-1]["class"] == "java.net.URLClassLoader", el[-1]
total = groups[0]["retained_bytes"]
# App's page cache and the Worker class's buffer: a megabyte each
assert (2 << 20) < total < (5 << 19), total
print("ok: a loader kept by its own thread retains", total, "bytes with its classes")
PY

java -cp "$work/classes" com.example.redeploy.Redeploy "$work/webapp" "$work/l12.hprof" \
    $(for i in $(seq 12); do printf 'listener '; done) clean
"$LEAKRAY" analyze "$work/l12.hprof" --json --no-timing > "$work/l12.json"
"$LEAKRAY" analyze "$work/l12.hprof" --no-timing > "$work/l12.txt"
python3 - "$work/l12.json" "$work/l12.txt" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
text = open(sys.argv[2]).read()
sus = d["suspects"]
assert len(sus) == 1, [(s["kind"], s["description"]) for s in sus]
s = sus[0]
assert s["kind"] == "classes" and s["count"] == 12 and s["class"] == "webapp.App", s
assert s["retained_bytes"] >= 12 << 20, s["retained_bytes"]
assert s["description"].startswith("12 classes webapp.App, each defined by its own class "
                                   "loader (the biggest loaded by java.net.URLClassLoader @ "), s
assert "(webapp-listener)), occupy " in s["description"], s["description"]
refs = [(p["class"], (p.get("reference") or {}).get("name")) for p in s["path"]]
assert ("com.example.redeploy.Redeploy", "LISTENERS") in refs, refs
assert refs[-1][0] == "webapp.App", refs
assert s["description"] in text, text
print("ok: twelve leaked loaders' classes are one suspect,", s["retained_bytes"], "bytes")
PY
"$LEAKRAY" store ingest --db "$work/s12.db" --version 1 --at 2026-12-01 "$work/l12.hprof" \
    > /dev/null
"$LEAKRAY" store leaks --db "$work/s12.db" --json > "$work/l12s.json"
python3 - "$work/l12s.json" <<'PY'
import json, sys
leaks = json.load(open(sys.argv[1]))["leaks"]
assert [(l["kind"], l["short_description"], l["instances"]) for l in leaks] == \
    [("suspect", "classes webapp.App", 12)], leaks
print("ok: the store keeps the class group")
PY

# `diff --retained` gives the class objects' row what `histo --retained` gives it: the App
# classes and their statics are where the loaders' growth is (the row read 0 -> 0)
"$LEAKRAY" histo --retained --json --no-timing "$dump" > "$work/ha.json"
"$LEAKRAY" histo --retained --json --no-timing "$work/l12.hprof" > "$work/hb.json"
"$LEAKRAY" diff --retained --json --no-timing "$dump" "$work/l12.hprof" > "$work/diff.json"
python3 - "$work/ha.json" "$work/hb.json" "$work/diff.json" <<'PY'
import json, sys
row = lambda f: next(c for c in json.load(open(f))["classes"] if c["name"] == "<class objects>")
a, b, d = row(sys.argv[1]), row(sys.argv[2]), row(sys.argv[3])
assert (d["retained_a"], d["retained_b"]) == (a["retained"], b["retained"]), (a, b, d)
assert d["retained_delta"] > 10_000_000, d
print("ok: diff's class objects row grows by", d["retained_delta"], "bytes, as histo gives it")
PY
