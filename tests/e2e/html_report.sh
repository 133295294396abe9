#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# html_report.sh: `leakray report` pages opened in Chromium (tests/e2e/html_report.js). Writes
# a HotSpot dump of tests/programs/report/ReportDemo at test time and renames its leaked
# class, byte for byte, to markup that would run script if parsed as HTML (HPROF class
# names cannot hold '/', so its strings carry the closing script tag); renders it, a V8
# snapshot and two Android/ART dumps (fixtures; one with bitmaps); checks the files (size,
# one JSON island, no raw markup) and then the pages in the browser. `analyze --html` must
# write the same page as `report`. Screenshots: $LEAKRAY_BUILD/artifacts/html_report/.
set -euo pipefail
: "${LEAKRAY:?}" "${LEAKRAY_SRC:?}" "${LEAKRAY_BUILD:?}"
. "$LEAKRAY_SRC/tests/lib/playwright.sh"
fail() { echo "FAIL: $*" >&2; exit 1; }
. "$LEAKRAY_SRC/tests/e2e/need_lib.bash"
need_tools javac java
pw_setup || fail "Chromium + playwright-core unavailable"
fix=${LEAKRAY_FIXTURES:-$LEAKRAY_SRC/../shared/fixtures}
[ -d "$fix/hprof" ] || fail "no fixtures at $fix"
work=$LEAKRAY_BUILD/tmp/html_report
art=$LEAKRAY_BUILD/artifacts/html_report
rm -rf "$work" "$art"
mkdir -p "$work/classes" "$art"

javac -d "$work/classes" "$LEAKRAY_SRC/tests/programs/report/ReportDemo.java" \
    "$LEAKRAY_SRC/tests/programs/leaks/KeyedWeakReference.java"
java -cp "$work/classes" ReportDemo "$work/demo.hprof"
python3 - "$work/demo.hprof" "$work/inject.hprof" <<'PY'
import sys
d = open(sys.argv[1], 'rb').read()
name = b'Inj' + b'X' * 59
payload = b'<svg onload=alert(1)><img src=x onerror=alert(2)><script>&amp;'
assert len(name) == len(payload) and d.count(name) >= 1, d.count(name)
open(sys.argv[2], 'wb').write(d.replace(name, payload))
PY

"$LEAKRAY" report "$work/inject.hprof" -o "$work/java.html" >/dev/null
"$LEAKRAY" report "$fix/v8/heap-3.heapsnapshot" -o "$work/v8.html" >/dev/null
# a Node snapshot whose Summary has classes only the VM's roots reach (distance "-")
"$LEAKRAY" report "$fix/v8/small.heapsnapshot" -o "$work/v8small.html" >/dev/null
"$LEAKRAY" report "$fix/hprof/test-dump.hprof" --mapping "$fix/hprof/test-dump.map" \
    -o "$work/android.html" >/dev/null
"$LEAKRAY" report "$fix/hprof/dialer.android-hprof" -o "$work/dialer.html" >/dev/null
# A V8 snapshot whose names hold a closing script tag, U+2028 and an onerror handler.
"$LEAKRAY" report "$LEAKRAY_SRC/tests/fuzz/corpus/report_render/v8-markup-names.heapsnapshot" \
    -o "$work/markup.html" >/dev/null

# The files: bounded, three script elements (data, kit.js, report.js), markup from the dump only in escaped form.
for f in java v8 android dialer markup; do
    h=$work/$f.html
    size=$(stat -c %s "$h")
    [ "$size" -lt $((5 << 20)) ] || fail "$f.html is $size bytes"
    [ "$(grep -o '<script' "$h" | wc -l)" = 3 ] || fail "$f.html: not exactly three <script"
    ! grep -q 'alert(' "$h" || ! grep -aq '<img src=x' "$h" || fail "$f.html: raw markup"
done
grep -q 'u003csvg onload=alert(1)\\u003e\\u003cimg' "$work/java.html" ||
    fail "java.html: the class name is not in the data, escaped"

# analyze --html writes the report's page (timings aside).
"$LEAKRAY" analyze "$work/inject.hprof" --no-timing --html "$work/analyze.html" >/dev/null
"$LEAKRAY" report "$work/inject.hprof" --no-timing -o "$work/report.html" >/dev/null
sed 's/"file":"[^"]*"//' "$work/analyze.html" >"$work/a.norm"
sed 's/"file":"[^"]*"//' "$work/report.html" >"$work/r.norm"
cmp -s "$work/a.norm" "$work/r.norm" || fail "analyze --html and report pages differ"

# The model JSON (--format json) is what the page embeds.
"$LEAKRAY" report "$work/inject.hprof" --no-timing --format json -o "$work/model.json" >/dev/null
"$LEAKRAY" top "$work/inject.hprof" --no-timing --json --top 1 >"$work/top.json"
"$LEAKRAY" analyze "$work/inject.hprof" --no-timing --json >"$work/analyze.json"
python3 - "$work/model.json" "$work/top.json" "$work/analyze.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
top = json.load(open(sys.argv[2]))
an = json.load(open(sys.argv[3]))
assert d["schema_version"] == 1 and d["format"] == "hprof"
assert d["summary"]["mode"] == "leaks" and d["summary"]["leaking_objects"] == 1, d["summary"]
g = d["groups"][0]
assert g["short_description"] == "SessionCache.ENTRIES", g
t = d["traces"][g["traces"][0]]
assert t["class"].startswith("<svg onload=alert(1)>"), t["class"]
assert t["elements"][-1]["leaking"] == "YES"
rows = d["tree"]["objects"]
assert rows[0][0] == -1 and all(0 <= r[0] < i for i, r in enumerate(rows) if i), "parents first"
# one node, one retained size: the tree is the one `top` shows (VisualVM's conventions here,
# whose root total is its own sum, so the children only nearly add up to it)
assert rows[0][3] == top["reachable_bytes"] == d["summary"]["reachable_bytes"], (rows[0], top)
kids = sum(r[3] for r in rows if r[0] == 0)
assert abs(kids - rows[0][3]) <= rows[0][3] // 1000, "children of the root add up"
first = max((r for r in rows if r[0] == 0), key=lambda r: r[3])
assert first[3] == top["objects"][0]["retained"], (first, top["objects"][0])
# analyze's LARGEST RETAINERS, never a leak trace: same suspects, same sizes
assert [s["description"] for s in d["suspects"]] == [s["description"] for s in an["suspects"]]
assert [s["retained_bytes"] for s in d["suspects"]] == \
    [s["retained_bytes"] for s in an["suspects"]], (d["suspects"], an["suspects"])
assert d["suspects"] and "LARGEST RETAINERS" in d["suspects_text"], d.get("suspects_text")
assert len(d["traces"]) == len(an["traces"]) and \
    all(t["source"] != "suspect" for t in d["traces"]), "a suspect became a trace"
PY

# The page's trace must read as `analyze` prints it (less the "~~~" underline lines).
"$LEAKRAY" analyze "$work/inject.hprof" --no-timing >"$work/analyze.txt"
python3 - "$work/analyze.txt" "$work/expected-trace.txt" <<'PY'
import sys
lines = open(sys.argv[1], encoding='utf-8').read().split('\n')
start = lines.index('\u252c\u2500\u2500\u2500')
end = next(i for i in range(start, len(lines)) if lines[i].startswith('===='))
keep = [l for l in lines[start:end] if l.rstrip('~ ').rstrip() != '\u2502' or '~' not in l]
open(sys.argv[2], 'w', encoding='utf-8').write('\n'.join(keep))
PY
# V8: DevTools' Summary rows by retained size, each with its biggest object's retainers.
"$LEAKRAY" report "$fix/v8/heap-3.heapsnapshot" --no-timing --format json -o "$work/v8.json" \
    >/dev/null
python3 - "$work/v8.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
rows = d["devtools_summary"]
assert len(rows) > 10 and all(a["retained_bytes"] >= b["retained_bytes"]
                              for a, b in zip(rows, rows[1:])), "not by retained size"
assert rows[0]["sample"]["retainers"], rows[0]
assert d["clusters"] and d["tree"]["objects"][1][1] == "(GC roots)", d["tree"]["objects"][:2]
PY
# Biggest objects are the rows `top` prints (never the synthetic root or "(GC roots)"), and a
# Summary sample whose retaining path is longer than the pane shows lists its nearest hops.
for snap in heap-3 small; do
    "$LEAKRAY" report "$fix/v8/$snap.heapsnapshot" --no-timing --format json \
        -o "$work/v8-$snap.json" >/dev/null || fail "report $snap.heapsnapshot failed"
    "$LEAKRAY" top "$fix/v8/$snap.heapsnapshot" --no-timing --json --top 10 >"$work/v8-top.json"
    python3 - "$work/v8-$snap.json" "$work/v8-top.json" <<'PY' || fail "report $snap: top objects"
import json, sys
d = json.load(open(sys.argv[1]))
top = json.load(open(sys.argv[2]))["objects"]
got = [(o["id"], o["retained_bytes"]) for o in d["top_objects"][:10]]
assert got == [(o["id"], o["retained"]) for o in top], (got, top)
hops = [len(r["sample"]["retainers"]) for r in d["devtools_summary"] if "sample" in r]
assert hops and max(hops) <= 12, hops
PY
done
pw_node "$LEAKRAY_SRC/tests/e2e/html_report.js" "$work" "$art"
ls "$art"/*.png >/dev/null || fail "no screenshots"

# The page's shallow sizes are histo's and info's: the native bytes a Cleaner frees (Android's
# registry on test-dump: 100,000 bytes on java.lang.Object instances) count apart, as
# `info` shows them, not in a class's shallow bytes
nd=$fix/hprof/test-dump.hprof
"$LEAKRAY" report --format json -o "$work/native.json" "$nd" >/dev/null || fail "report json"
"$LEAKRAY" info --json "$nd" >"$work/native-info.json"
"$LEAKRAY" histo --json "$nd" >"$work/native-histo.json"
python3 - "$work/native.json" "$work/native-info.json" "$work/native-histo.json" <<'PY' ||
import json, sys
r, i, h = (json.load(open(p)) for p in sys.argv[1:4])
s = r["summary"]
assert s["shallow_bytes"] == i["shallow_total"] and s["native_bytes"] == i["native_total"], s
hs = {c["name"]: c["shallow"] for c in h["classes"]}
bad = [c for c in r["classes"] if hs.get(c["name"]) != c["shallow_bytes"]]
assert not bad, bad[:3]
PY
    fail "the report's shallow sizes differ from info's and histo's"

# The pages print sizes as the CLI does (C's %.1f: an exact tie to the even tenth, so
# 1,250,000 bytes is 1.2 MB on the page as in `analyze`, where toFixed said 1.3)
vals="999 1000 1049 1050 1250000 1750000 2250000 250000 1050000 12345678 987654321098"
got=$(node -e 'const f = new Function("document", require("fs").readFileSync(process.argv[1],
    "utf8") + "; return LRKIT;"); const K = f({});
console.log(process.argv.slice(2).map((n) => K.bytes(Number(n))).join("|"))' \
    "$LEAKRAY_SRC/src/report/assets/kit.js" $vals)
want=$(python3 -c 'import sys
def h(n):
    if n < 1000: return "%d B" % n
    v, e = float(n), 0
    while v >= 1000 and e < 6: v /= 1000; e += 1
    return "%.1f %sB" % (v, "kMGTPE"[e - 1])
print("|".join(h(int(a)) for a in sys.argv[1:]))' $vals)
[ "$got" = "$want" ] || fail "page sizes [$got] differ from the CLI's [$want]"
echo "html_report: ok"
