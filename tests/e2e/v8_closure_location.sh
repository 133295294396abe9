#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# v8_closure_location.sh: a closure is named by where its function is written. Node's
# snapshot records each closure's script, line and column (`locations`) and its script's
# path (closure -> shared -> script): tests/programs/node/closure_sites.js leaks 300 Widgets
# through anonymous arrow functions and 40 Panels through `function onResize`, each written
# on one line marked SITE. Checked: `analyze --watch` labels the closure in each trace with
# `Function location: PATH:LINE:COLUMN` (1-based, as an editor opens it; the column of the
# function's parameter list, where V8 starts it); `show` and `path` print the same, in text
# and JSON; `sql`'s objects.location gives the closure's own `scriptId,line,column` (0-based),
# so `GROUP BY location` counts the closures written at each place. Eval'd code (30 Gadgets
# held from a module longer than the snapshot keeps of its source, 20 Sprockets from a short
# one, as a bundler's development build evals each module) is named by its `//# sourceURL=`.
set -euo pipefail
: "${LEAKRAY:?}" "${LEAKRAY_SRC:?}" "${LEAKRAY_BUILD:?}"
command -v node >/dev/null || { echo "SKIP: node not installed"; exit 77; }
command -v python3 >/dev/null || { echo "SKIP: python3 not installed"; exit 77; }
work="$LEAKRAY_BUILD/tmp/v8_closure_location"
rm -rf "$work"
mkdir -p "$work"
fail() { echo "FAIL: $*" >&2; exit 1; }
prog="$LEAKRAY_SRC/tests/programs/node/closure_sites.js"
node "$prog" "$work" || fail "node could not write the snapshot"
snap="$work/closures.heapsnapshot"
node "$prog" "$work" --sites >"$work/sites.json" || fail "node could not list the eval'd sites"
for c in Widget Panel Gadget Sprocket; do
    "$LEAKRAY" analyze "$snap" --watch "$c" --json --no-timing --no-suspects \
        > "$work/$c.json" || fail "analyze --watch $c failed"
done
"$LEAKRAY" sql "$snap" --csv "SELECT location, count(*) FROM objects WHERE class = 'Function'
    AND location IS NOT NULL GROUP BY location HAVING count(*) >= 40 ORDER BY 2 DESC" \
    > "$work/sites.csv" || fail "sql failed"
python3 - "$work" "$prog" "$LEAKRAY" "$snap" <<'PY' || fail "closure locations"
import json, subprocess, sys
work, prog, lr, snap = sys.argv[1:5]
src = open(prog).read().split("\n")
def site(mark, start):
    for i, line in enumerate(src):
        if "// SITE " + mark in line:
            return i + 1, line.index(start) + 1
    raise SystemExit("no mark " + mark)
want = {"Widget": site("arrow", "() =>"), "Panel": site("named", "() {")}
url = dict.fromkeys(want, prog)
# eval'd code: named by its sourceURL; the line and column within the eval'd text
for cls, (u, text) in json.load(open(work + "/sites.json")).items():
    lines = text.split("\n")
    i = next(k for k, l in enumerate(lines) if "() =>" in l)
    want[cls], url[cls] = (i + 1, lines[i].index("() =>") + 1), u
count = {"Widget": 300, "Panel": 40, "Gadget": 30, "Sprocket": 20}
for cls, (line, col) in want.items():
    prog = url[cls]
    d = json.load(open("%s/%s.json" % (work, cls)))
    traces = [t for t in d["traces"] if t["class"] == cls]
    assert len(traces) == count[cls], (cls, len(traces))
    label = "Function location: %s:%d:%d" % (prog, line, col)
    # a group's later traces may be cut short (elided); each closure shown is labelled
    fns = [e for t in traces for e in t["elements"] if e["class"] == "Function"]
    assert fns, traces[0]
    for f in fns:
        assert label in f.get("labels", []), (label, f.get("labels"))
    fid = fns[-1]["id"]
    show = json.loads(subprocess.run([lr, "show", snap, fid, "--json", "--no-timing"],
                                     check=True, capture_output=True, text=True).stdout)
    loc = show["object"]["location"] if "object" in show else show["location"]
    assert (loc["url"], loc["line"], loc["column"]) == (prog, line, col), loc
    text = subprocess.run([lr, "show", snap, fid, "--no-timing"], check=True,
                          capture_output=True, text=True).stdout
    assert "location:      %s:%d:%d\n" % (prog, line, col) in text, text
    obj = traces[0]["leaking_object"]
    p = json.loads(subprocess.run([lr, "path", snap, obj, "--json", "--no-timing"],
                                  check=True, capture_output=True, text=True).stdout)
    locs = [s.get("location") for s in p["path"] if s.get("location")]
    assert "%s:%d:%d" % (prog, line, col) in locs, p["path"]
rows = [l.split(",") for l in open(work + "/sites.csv").read().split("\n")[1:] if l]
counts = {(int(r[1].strip('"')) + 1, int(r[2].strip('"')) + 1): int(r[3]) for r in rows}
assert counts.get(want["Widget"]) == 300, counts
assert counts.get(want["Panel"]) == 40, counts
print("ok: arrow at %d:%d (300 closures), onResize at %d:%d (40), eval'd code named by its"
      " sourceURL" % (want["Widget"] + want["Panel"]))
PY
echo "v8_closure_location: ok"
