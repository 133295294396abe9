#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# collapse_flutter.sh: `leakray path --collapse` on a HotSpot dump of
# tests/programs/collapse/CollapseDump.java: a static holds a 300-node Flutter-like chain
# (150 elements with an ArrayList + Object[] inside, a HashMap, 80 widgets named Text /
# Padding, 20 states, 50 render objects) ending at a LeakedController. Asserted exactly:
# below `class CollapseDump` the 306 nodes collapse to 6 lines (element x152 through 2
# collection nodes, collection x3, widget x80, state x20, renderObject x50, the target);
# the text rendering agrees; --json keeps the full path; android-views and a custom
# categories file give their own exact shapes; usage and rules errors exit 2 / 3.
set -euo pipefail
. "$LEAKRAY_SRC/tests/e2e/foundation_lib.bash"
fdn_init collapse_flutter
fdn_need_java
D=$FDN_TMP/collapse.hprof
javac -d "$FDN_TMP/classes" "$LEAKRAY_SRC"/tests/programs/collapse/*.java || fdn_fail "javac failed"
java -Xmx256m -cp "$FDN_TMP/classes" CollapseDump "$D" || fdn_fail "CollapseDump failed"
[ -s "$D" ] || fdn_fail "no dump written"

id=$("$LEAKRAY" analyze "$D" --watch LeakedController --json --no-timing --no-shipped-rules |
    python3 -c "import json,sys; print(json.load(sys.stdin)['traces'][0]['leaking_object'])")
J=$FDN_TMP/path.json
"$LEAKRAY" path "$D" "$id" --collapse --json --no-timing >"$J"
python3 - "$J" <<'PY' || fdn_fail "collapsed JSON checks"
import json, sys
j = json.load(open(sys.argv[1]))
path, col = j["path"], j["collapsed"]
fails = 0
def check(ok, what):
    global fails
    print(("ok: " if ok else "FAIL: ") + what, file=sys.stderr)
    fails += not ok
head = [i for i, c in enumerate(col) if c["first_class"] == "class CollapseDump"]
check(len(head) == 1, "one line for class CollapseDump")
h = head[0] if head else 0
tail = [(c["category"], c["count"], c["collections"]) for c in col[h + 1:]]
want = [("element", 152, 2), ("collection", 3, 0), ("widget", 80, 0), ("state", 20, 0),
        ("renderObject", 50, 0), ("other", 1, 0)]
check(tail == want, "lines below the static: %s" % tail)
check(len(col) == h + 1 + 6, "%d lines for %d path nodes" % (len(col), len(path)))
check(len(path) == h + 1 + 306, "full path kept under --json: %d nodes" % len(path))
check(sum(c["count"] for c in col) == len(path), "line counts cover the path")
check(all(c["from"] == (col[i - 1]["to"] + 1 if i else 0) and c["to"] - c["from"] + 1 == c["count"]
          for i, c in enumerate(col)), "from/to are contiguous path indexes")
el = col[h + 1]
check((el["reference"], el["name"], el["first_class"], el["last_class"]) ==
      ("static", "ROOT", "StatelessElement", "StatefulElement"), "element run ends: %s" % el)
check([path[i]["class"] for i in range(el["from"], el["to"] + 1)].count("java.util.ArrayList") == 1,
      "the ArrayList sits inside the element run")
w = col[h + 3]
check((w["first_class"], w["last_class"], w["name"]) == ("Text", "Padding", "value"),
      "widgets (Text, Padding: no 'Widget' in the names) entered through HashMap$Node.value")
check(col[-1]["first_class"] == "LeakedController" and col[-1]["category"] == "other",
      "the target keeps its own line")
sys.exit(1 if fails else 0)
PY

T=$FDN_TMP/path.txt
"$LEAKRAY" path "$D" "$id" --collapse --no-timing >"$T"
n_json=$(python3 -c "import json,sys; print(len(json.load(open(sys.argv[1]))['collapsed']))" "$J")
n_len=$(python3 -c "import json,sys; print(len(json.load(open(sys.argv[1]))['path']))" "$J")
grep -q "^collapsed: $n_len objects on $n_json lines$" "$T" ||
    fdn_fail "text footer: $(tail -1 "$T")"
[ "$(grep -c -- '--\[' "$T")" = $((n_json - 1)) ] || fdn_fail "one reference line between lines"
el='^  152 x element: .* StatelessElement \.\.\. .* StatefulElement'
grep -q "$el (through 2 collection nodes)\$" "$T" ||
    fdn_fail "element line: $(grep element "$T")"
for want in '3 x collection: .* java.util.HashMap \.\.\. .* java.util.HashMap\$Node$' \
    '80 x widget: .* Text \.\.\. .* Padding$' \
    '20 x state: .* HomePageState \.\.\. .* HomePageState$' \
    '50 x renderObject: .* RenderParagraph \.\.\. .* RenderBox$' \
    '^  0x[0-9a-f]* LeakedController$'; do
    grep -q -- "$want" "$T" || fdn_fail "no line matching '$want'"
done
[ "$(grep -c ' x [a-zA-Z]*: ' "$T")" = 5 ] || fdn_fail "5 collapsed lines expected"
echo "ok: text rendering: $n_json lines for $n_len objects" >&2
grep -q "^collapsed:" <<<"$("$LEAKRAY" path "$D" "$id" --no-timing)" && fdn_fail "plain path changed"

# android-views: no view here; only the collections group (2 and 3 nodes, each its own line).
"$LEAKRAY" path "$D" "$id" --collapse --categories android-views --json --no-timing >"$J"
python3 - "$J" <<'PY' || fdn_fail "android-views shape"
import json, sys
j = json.load(open(sys.argv[1]))
runs = [(c["category"], c["count"]) for c in j["collapsed"] if c["count"] > 1]
ok = runs == [("collection", 2), ("collection", 3)] and len(j["collapsed"]) == len(j["path"]) - 3
print(("ok" if ok else "FAIL") + ": android-views runs %s, %d lines" % (runs, len(j["collapsed"])),
      file=sys.stderr)
sys.exit(0 if ok else 1)
PY

# A custom file: one "ui" category; both collection groups sit between ui runs and merge.
R=$FDN_TMP/ui.rules
cat >"$R" <<'RULES'
# one category for the whole tree
category ui Element Widget State RenderObject
category collection java.util.AbstractCollection java.util.AbstractMap java.util.HashMap$Node *[]
RULES
"$LEAKRAY" path "$D" "$id" --collapse --categories "$R" --json --no-timing >"$J"
python3 - "$J" <<'PY' || fdn_fail "custom categories shape"
import json, sys
j = json.load(open(sys.argv[1]))
runs = [(c["category"], c["count"], c["collections"]) for c in j["collapsed"] if c["count"] > 1]
ok = runs == [("ui", 305, 5)]
print(("ok" if ok else "FAIL") + ": custom file runs %s" % runs, file=sys.stderr)
sys.exit(0 if ok else 1)
PY

rc=0
"$LEAKRAY" path "$D" "$id" --categories flutter >/dev/null 2>&1 || rc=$?
[ "$rc" = 2 ] || fdn_fail "--categories without --collapse should exit 2, got $rc"
printf 'category ui Element\ncategory broken\n' >"$R"
rc=0
"$LEAKRAY" path "$D" "$id" --collapse --categories "$R" >/dev/null 2>"$FDN_TMP/err" || rc=$?
[ "$rc" = 3 ] || fdn_fail "bad rules file should exit 3, got $rc"
grep -q "ui.rules:2: missing class patterns" "$FDN_TMP/err" ||
    fdn_fail "message: $(cat "$FDN_TMP/err")"
rc=0
"$LEAKRAY" path "$D" "$id" --collapse --categories nosuchset >/dev/null 2>&1 || rc=$?
[ "$rc" = 2 ] || fdn_fail "unknown set should exit 2, got $rc"
echo "PASS"
