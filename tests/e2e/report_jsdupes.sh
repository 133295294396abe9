#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# report_jsdupes.sh: the report of a V8-style snapshot shows memlab's duplicate strings, with
# the numbers `leakray dupes --json` prints. On the V8 fixtures (tests/programs/node/
# v8_strings.js's planted values, Node 22/24, three Chromium page snapshots) and on a Node
# snapshot written here by tests/programs/node/report_strings.js (markup with a closing
# script tag, quotes, U+2028, a lone surrogate, a value cut inside a character, a long
# concatenation, and a marker rewritten here into bytes that are not UTF-8), the model's
# js_strings must equal dupes' key for key (values as their first 1,024 bytes, ids as
# "@N", 16 at most); `analyze --html` carries it too; the page holds the markup only
# escaped; in Chromium (tests/e2e/report_jsdupes.js) the Duplicates tab lists it as text.
# jsdupes.sh's hostile concatenations (scripts/gen-v8-strings.py) must report in bounded
# time with the 3 MiB value cut on a character boundary.
# The classes table of these reports must be DevTools' Summary (the synthetic root was the
# biggest "class", retaining the whole heap, and zero-size nodes added retained bytes DevTools
# never counts), and the Summary names no Android on them.
# Screenshots: $LEAKRAY_BUILD/artifacts/report_jsdupes/.
set -euo pipefail
: "${LEAKRAY:?}" "${LEAKRAY_SRC:?}" "${LEAKRAY_BUILD:?}"
fail() { echo "FAIL: $*" >&2; exit 1; }
. "$LEAKRAY_SRC/tests/e2e/need_lib.bash"
need_tools python3 node
. "$LEAKRAY_SRC/tests/lib/playwright.sh"
pw_setup || fail "Chromium + playwright-core unavailable"
work=$LEAKRAY_BUILD/tmp/report_jsdupes
art=$LEAKRAY_BUILD/artifacts/report_jsdupes
rm -rf "$work" "$art"
mkdir -p "$work" "$art"
data=$LEAKRAY_SRC/tests/data

for n in strings node22-final node24-final; do
    python3 -c "import lzma, shutil, sys
shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[2], 'wb'))" \
        "$data/v8/$n.heapsnapshot.xz" "$work/$n.heapsnapshot"
done
for n in browser-final churn-final fiber-final; do
    ln -s "$data/browser/$n.heapsnapshot.gz" "$work/$n.heapsnapshot"
done
# jsdupes.sh's hostile concatenations: a cycle, a 200,000-deep chain, a value of 3 MiB
python3 "$LEAKRAY_SRC/scripts/gen-v8-strings.py" 3 2000 hostile >"$work/hostile.heapsnapshot"
node "$LEAKRAY_SRC/tests/programs/node/report_strings.js" "$work/written.heapsnapshot"
python3 - "$work/written.heapsnapshot" "$work/node.heapsnapshot" <<'PY'
import sys
d = open(sys.argv[1], 'rb').read()
mark = b'BADUTF8-MARKER-0123456789'
bad = b'BAD\xff\xfe\xc3(\x80\xf0\x9f\x98-\xed\xa0\x80\xc0\xaf'
bad += b'z' * (len(mark) - len(bad))
assert len(bad) == len(mark) and d.count(mark) == 1, d.count(mark)
open(sys.argv[2], 'wb').write(d.replace(mark, bad))
PY

# The model's numbers are dupes' numbers.
for n in strings node22-final node24-final browser-final churn-final fiber-final node hostile; do
    timeout 300 "$LEAKRAY" report "$work/$n.heapsnapshot" --no-timing --format json \
        -o "$work/$n.model.json" >/dev/null || fail "report $n"
    "$LEAKRAY" dupes --json "$work/$n.heapsnapshot" >"$work/$n.dupes.json" || fail "dupes $n"
    python3 "$LEAKRAY_SRC/tests/e2e/report_jsdupes_compare.py" "$work/$n.model.json" \
        "$work/$n.dupes.json" || fail "$n: model and dupes differ"
done

# The classes table is DevTools' Summary: each row one of DevTools' classes (golden files of
# scripts/golden-devtools.sh), the 500 biggest.
for n in node22-final node24-final browser-final; do
    golden=$(echo "$LEAKRAY_SRC"/tests/e2e/expected/devtools/$n.heapsnapshot.*.classes.tsv)
    python3 - "$work/$n.model.json" "$golden" <<'PY' || fail "$n: classes differ from DevTools"
import collections, json, sys
rows = json.load(open(sys.argv[1]))["classes"]
dev = collections.Counter()
for line in open(sys.argv[2], encoding="utf-8"):
    p = line.rstrip("\n").split("\t")
    if not p[0].startswith("#"):
        dev[(p[1], int(p[2]), int(p[4]), int(p[5]))] += 1
got = collections.Counter((c["name"], c["count"], c["shallow_bytes"], c["retained_bytes"])
                          for c in rows)
assert not got - dev, sorted(got - dev)[:3]
assert len(rows) == min(500, sum(dev.values())), (len(rows), sum(dev.values()))
low = min(c["retained_bytes"] for c in rows)
assert all(k[3] <= low for k in dev - got), "a bigger class is missing"
PY
done

# The 3 MiB value: its first 1,023 bytes (the 1,024th would split a character), flagged.
python3 - "$work/hostile.model.json" <<'PY' || fail "hostile: the 3 MiB value"
import json, sys
top = json.load(open(sys.argv[1]))["js_strings"]["top_size"][0]
assert top["value"] == "\u00e9x" * 341 and top["value_bytes"] == 3 << 20 and \
    top["value_truncated"] and top["count"] == 2, (top["value"][:20], top["value_bytes"])
PY

# The written snapshot's planted values, as the page will show them.
python3 - "$work/node.model.json" <<'PY' || fail "node: planted values"
import json, sys
m = json.load(open(sys.argv[1]))["js_strings"]
top = {}
for g in m["top_count"] + m["top_size"]:
    top[g["value"]] = g
markup = '</script><script>alert(5)</script><img src=x onerror=alert(6)>'
assert top[markup]["count"] == 60, top.get(markup)
assert top['"double" \'single\' back\\slash `tick` &amp; &lt;']["count"] >= 50
assert top['line\u2028sep\u2029para\nnewline\ttab\u0001ctl']["count"] >= 45
bad = [g for v, g in top.items() if v.startswith("BAD\ufffd")]
assert bad and bad[0]["count"] >= 30, bad
cut = 'x' + '\u00e9' * 511
assert top[cut]["value_bytes"] == 1201 and top[cut]["value_truncated"], top.get(cut)
longs = [g for g in m["top_size"] if g["value"].startswith("A" * 1000) and g["value_truncated"]]
assert longs and max(g["value_bytes"] for g in longs) > 4000, [g["value_bytes"] for g in longs]
PY

# The page: three scripts, the markup only escaped; analyze --html carries the section.
"$LEAKRAY" report "$work/node.heapsnapshot" -o "$work/node.html" >/dev/null
"$LEAKRAY" report "$work/strings.heapsnapshot" -o "$work/strings.html" >/dev/null
"$LEAKRAY" report "$work/browser-final.heapsnapshot" -o "$work/browser.html" >/dev/null
"$LEAKRAY" analyze "$work/node.heapsnapshot" --html "$work/analyze.html" >/dev/null
# no string node at all: no Duplicates tab
"$LEAKRAY" report "$data/v8/cliques.heapsnapshot" -o "$work/cliques.html" >/dev/null
for f in node strings browser analyze; do
    h=$work/$f.html
    [ "$(grep -o '<script' "$h" | wc -l)" = 3 ] || fail "$f.html: not exactly three <script"
    grep -q '"js_strings":{' "$h" || fail "$f.html: no js_strings in the data"
done
! grep -aq 'onerror=alert(6)>' "$work/node.html" || fail "node.html: raw markup"
grep -q 'u003c/script\\u003e\\u003cscript\\u003ealert(5)' "$work/node.html" ||
    fail "node.html: the markup is not in the data, escaped"

pw_node "$LEAKRAY_SRC/tests/e2e/report_jsdupes.js" "$work" "$art"
echo "report_jsdupes: ok"
