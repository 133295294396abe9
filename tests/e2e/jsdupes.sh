#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# jsdupes.sh: `leakray dupes --json` on V8 heap snapshots gives memlab 2.0.5's duplicate-string
# analysis (`memlab analyze string`) exactly: pattern statistics and both top-10 lists with
# values, counts, retained sizes and ids (goldens from scripts/golden-v8-strings.sh, compared
# by jsdupes_compare.py; no memlab or Node at test time). Inputs:
#   strings   tests/programs/node/v8_strings.js's planted duplicates (JSON parsed 1000 times,
#             concatenations, slices, memlab's patterns, index-like values in ties, code);
#   node22-final, node24-{baseline,target,final}   the Node 22/24 snapshots of v8_newer.sh;
#   browser-final, churn-final, fiber-final   Chromium page snapshots (tests/data/browser);
#   gen-1..3  random graphs by scripts/gen-v8-strings.py (cliques, orphans, code dominators,
#             concatenations of slices, values from a small pool), written here again.
# Then a hostile graph (gen-v8-strings.py ... hostile: a cycle of concatenations, a chain
# 200,000 deep, a DAG whose value doubles 60 times, twin DAGs whose value is 3 MiB) must be
# read in bounded time with a sane answer, and the text listing must show the top values.
set -euo pipefail
: "${LEAKRAY:?}" "${LEAKRAY_SRC:?}" "${LEAKRAY_BUILD:?}"
command -v python3 >/dev/null || { echo "SKIP: python3 not installed"; exit 77; }
work="$LEAKRAY_BUILD/tmp/jsdupes"
rm -rf "$work" && mkdir -p "$work"
data=$LEAKRAY_SRC/tests/data/v8
gold=$LEAKRAY_SRC/tests/e2e/expected/jsdupes
cmp=$LEAKRAY_SRC/tests/e2e/jsdupes_compare.py
fails=0
ok() { echo "ok: $*"; }
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }

for n in strings node22-final node24-baseline node24-target node24-final; do
    python3 -c "import lzma, shutil, sys
shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[2], 'wb'))" \
        "$data/$n.heapsnapshot.xz" "$work/$n.heapsnapshot"
done
for s in 1 2 3; do
    python3 "$LEAKRAY_SRC/scripts/gen-v8-strings.py" "$s" 3000 >"$work/gen-$s.heapsnapshot"
done
for n in browser-final churn-final fiber-final; do
    ln -s "$LEAKRAY_SRC/tests/data/browser/$n.heapsnapshot.gz" "$work/$n.heapsnapshot"
done
for n in strings node22-final node24-baseline node24-target node24-final gen-1 gen-2 gen-3 \
    browser-final churn-final fiber-final; do
    "$LEAKRAY" dupes --json "$work/$n.heapsnapshot" >"$work/$n.json"
    if python3 "$cmp" "$work/$n.json" "$gold/$n.memlab.json" >"$work/$n.cmp"; then
        ok "$n: $(tail -1 "$work/$n.cmp")"
    else
        bad "$n differs from memlab:"
        head -20 "$work/$n.cmp"
    fi
done

# The planted groups are really there (a regenerated program that lost them fails here).
if python3 - "$work/strings.json" <<'PY'; then
import json, sys
js = json.load(open(sys.argv[1]))["js_strings"]
top = {g["value"]: g for g in js["top_count"] + js["top_size"]}
want = {"planted-user-name": 1001, "planted-left-part-planted-right-part": 300,
        "nested-a-nested-b-nested-c-nested-d": 200}
for v, n in want.items():
    if v not in top or top[v]["count"] != n:
        sys.exit("  %r: %s" % (v, top.get(v, {}).get("count")))
longv = "x" * 900 + "y" * 900 + "-tail-of-a-long-concatenation"
if longv not in top or top[longv]["count"] != 250 or top[longv]["value_bytes"] != len(longv):
    sys.exit("  the 1,829-byte concatenation is missing")
pats = [p["name"] for p in js["patterns"]]
if len(pats) != 7 or pats[0] != "All strings" or pats[-1] != "JS code string":
    sys.exit("  patterns %s" % pats)
PY
    ok "strings: planted groups, the long concatenation and all seven patterns"
else
    bad "strings: planted groups"
fi

# Hostile concatenations: bounded time, every node counted, values cut where asked.
python3 "$LEAKRAY_SRC/scripts/gen-v8-strings.py" 3 2000 hostile >"$work/hostile.heapsnapshot"
if timeout 120 "$LEAKRAY" dupes --json "$work/hostile.heapsnapshot" >"$work/hostile.json" &&
    python3 - "$work/hostile.json" <<'PY'; then
import json, sys
js = json.load(open(sys.argv[1]))["js_strings"]
# 200,000 chain links + 60 DAG levels + 2 cycle members + the leaf, among the random ones
if js["strings"] < 200063:
    sys.exit("  %d strings" % js["strings"])
# the twin DAGs' 3 MiB value: cut at 1 MiB before the character the limit splits, grouped
# past the 1 MiB compare cap (unverified: its level above 1 MiB, in both DAGs' pair)
top = js["top_size"][0]
if (top["value"] != "\u00e9x" * 349525 or top["value_bytes"] != 3 << 20 or
        not top["value_truncated"] or top["count"] != 2 or js["unverified"] != 2):
    sys.exit("  top %r x%d, unverified %d" % (top["value"][:20], top["count"],
                                              js["unverified"]))
# x^(2^17) is both a chain link and a DAG level: the largest value two nodes share
top = js["top_size"][1]
if top["value"] != "x" * 131072 or top["count"] != 2 or top["value_truncated"]:
    sys.exit("  second %r x%d" % (top["value"][:20], top["count"]))
PY
    ok "hostile: cycle, 200,000-deep chain and doubling DAG read in bounded time"
else
    bad "hostile concatenations"
fi

"$LEAKRAY" dupes --no-timing "$work/strings.heapsnapshot" >"$work/strings.txt"
if grep -q 'Duplicate JS strings (memlab' "$work/strings.txt" &&
    grep -q '#1 x1,001, 40.0 kB: "planted-user-name"' "$work/strings.txt"; then
    ok "text listing"
else
    bad "text listing"
    sed -n '/Duplicate JS/,+8p' "$work/strings.txt"
fi
[ "$fails" -eq 0 ] || { echo "$fails failure(s)"; exit 1; }
echo "all ok"
