#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# redeploy_loaders.sh: the classic class loader leaks of a redeployed web application, on a
# real HotSpot dump. tests/programs/redeploy/Redeploy.java deploys webapp/App.java four
# times, each in a URLClassLoader of its own, and undeploys it; three loaders stay, kept by
# a ThreadLocal value in a pooled worker, a driver in DriverManager and a listener in a static
# list of the container; each keeps its App class and the class's 1 MB static array.
# `leakray analyze` must report the three classes as suspects, each named with the loader
# that defined it ("loaded by java.net.URLClassLoader @ 0x... (webapp-jdbc)", as MAT names
# a class of a non-JDK loader), each with its path from a GC root through the culprit and the
# instance -> class hop the JVM keeps (the VisualVM tree holds classes that way; the suspects'
# path search did not, and printed "no path from a GC root" and an accumulation point of 0
# bytes); and, watching java.net.URLClassLoader, one leak trace per kept loader, never the
# clean one, whose likely causes (~~~) are the culprit's references: the loader's class is
# leaking with it (it was "a class is never leaking", which put the mark on the class's
# <classloader> link, the one reference no one can cut).
set -euo pipefail
: "${LEAKRAY:?}" "${LEAKRAY_SRC:?}" "${LEAKRAY_BUILD:?}"
. "$LEAKRAY_SRC/tests/e2e/need_lib.bash"
need_tools javac java python3
work="$LEAKRAY_BUILD/tmp/redeploy_loaders"
rm -rf "$work"
mkdir -p "$work/classes" "$work/webapp"
prog="$LEAKRAY_SRC/tests/programs/redeploy"
javac -d "$work/webapp" "$prog/webapp/App.java"
javac -d "$work/classes" "$prog/Redeploy.java"
java -cp "$work/classes" com.example.redeploy.Redeploy "$work/webapp" "$work/r.hprof"
dump="$work/r.hprof"
fail() { echo "FAIL: $*" >&2; exit 1; }

"$LEAKRAY" analyze "$dump" --json --no-timing > "$work/a.json"
"$LEAKRAY" analyze "$dump" --no-timing > "$work/a.txt"
"$LEAKRAY" analyze "$dump" --json --no-timing --no-suspects \
    --watch java.net.URLClassLoader > "$work/w.json"
"$LEAKRAY" top "$dump" --json --no-timing --top 50 > "$work/top.json"
"$LEAKRAY" instances "$dump" java.net.URLClassLoader --json --no-timing > "$work/loaders.json"
# show by name: the dump has three classes named webapp.App; it says so and names the others
"$LEAKRAY" show "$dump" webapp.App --no-timing >/dev/null 2>"$work/show.err" ||
    fail "show webapp.App: $(cat "$work/show.err")"
grep -q "warning: 3 classes are named webapp.App (one per class loader); this is 0x[0-9a-f]*, the others: 0x[0-9a-f]*, 0x[0-9a-f]* (show takes their ids)" \
    "$work/show.err" || fail "show webapp.App: $(cat "$work/show.err")"
if grep -q 'no path from a GC root' "$work/a.txt"; then
    fail "a suspect reads 'no path from a GC root' (the class hop is not followed)"
fi
grep -q '^│    ↓ App\$RequestContext\.<class>$' "$work/a.txt" ||
    fail "text: no '<class>' hop out of the RequestContext the ThreadLocal keeps"

python3 - "$work/a.json" "$work/top.json" "$work/w.json" "$work/loaders.json" <<'PY'
import json, re, sys
d = json.load(open(sys.argv[1]))
top = json.load(open(sys.argv[2]))
w = json.load(open(sys.argv[3]))
loaders = json.load(open(sys.argv[4]))
ret = {o["id"]: o["retained"] for o in top["objects"]}
sus = d["suspects"]
assert [s["class"] for s in sus] == ["webapp.App"] * 3, [(s["kind"], s["class"]) for s in sus]
# the culprit each path must pass, by the loader's name
culprit = {
    "webapp-threadlocal": [("java.lang.Thread", "threadLocals"),
                           ("java.lang.ThreadLocal$ThreadLocalMap$Entry", "value"),
                           ("webapp.App$RequestContext", "<class>")],
    "webapp-jdbc": [("java.sql.DriverManager", "registeredDrivers"),
                    ("java.sql.DriverInfo", "driver"), ("webapp.App$AppDriver", "<class>")],
    "webapp-listener": [("com.example.redeploy.Redeploy", "LISTENERS"),
                        ("webapp.App$AppListener", "<class>")],
}
seen = set()
for s in sus:
    assert s["kind"] == "class", s["kind"]
    m = re.match(r"The class webapp\.App, loaded by java\.net\.URLClassLoader @ (0x[0-9a-f]+) "
                 r"\((webapp-[a-z]+)\), occupies ", s["description"])
    assert m, s["description"]
    loader, name = m.group(1), m.group(2)
    assert name in culprit and name not in seen, (name, seen)
    seen.add(name)
    assert s["path_length"] == len(s["path"]) > 0, s["description"]
    assert s["gc_root"]["kind"], s["gc_root"]
    acc = s["accumulation_point"]
    assert acc["class"] == "byte[]" and acc["retained_bytes"] == ret[acc["id"]] > 1 << 20, acc
    assert s["retained_bytes"] == ret[s["id"]], (s["retained_bytes"], ret.get(s["id"]))
    path = s["path"]
    assert path[-1]["id"] == acc["id"], path[-1]
    refs = [(e["class"], e["reference"]["name"], e["reference"]["kind"]) for e in path[:-1]]
    for cls, ref in culprit[name]:
        assert any(c == cls and r == ref for c, r, _ in refs), (name, cls, ref, refs)
    hops = [i for i, (c, r, k) in enumerate(refs) if r == "<class>"]
    assert len(hops) == 1 and refs[hops[0]][2] == "internal", refs
    # the hop leads to the class, whose <classloader> is the loader the sentence names
    h = hops[0]
    assert path[h + 1]["type"] == "class" and refs[h + 1][1] == "<classloader>", refs
    assert path[h + 2]["id"] == loader and path[h + 2]["class"] == "java.net.URLClassLoader"
    assert refs[-1][:2] == ("webapp.App", "PAGE_CACHE"), refs[-1]
assert seen == set(culprit), seen

# the clean deployment's loader is gone: three loaders, three traces, one per culprit
ids = sorted(o["id"] for o in loaders["instances"])
assert len(ids) == 3, ids
tr = w["traces"]
assert sorted(t["leaking_object"] for t in tr) == ids, (tr, ids)
got = set()
for t in tr:
    el = t["elements"]
    refs = [(e["class"], (e.get("reference") or {}).get("name")) for e in el]
    for name, want in culprit.items():
        if all(any(c == cls and r == ref for c, r in refs) for cls, ref in want):
            got.add(name)
            # the culprit's references are the likely causes (~~~)
            for cls, ref in want:
                e = next(e for e in el if e["class"] == cls and e["reference"]["name"] == ref)
                assert e["reference"]["suspect"], (name, cls, ref)
    # the class of the leaking loader leaks with it; its link to the loader, which the JVM
    # keeps for every class, is never a likely cause
    cls = el[-2]
    assert cls["type"] == "class" and cls["reference"]["name"] == "<classloader>", cls
    assert cls["leaking"] == "YES" and cls["reason"] == "its class loader is leaking", cls
    assert not cls["reference"]["suspect"], cls
assert got == set(culprit), got
print("ok: 3 suspects with paths through", ", ".join(sorted(seen)), "and 3 traces")
PY
