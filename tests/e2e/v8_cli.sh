#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# v8_cli.sh: the generic verbs show Chrome DevTools' numbers on V8 snapshots.
# - `histo --retained --json` of every fixture in ../shared/fixtures/v8 equals, class key by
#   class key, the Summary DevTools computes (count, distance, shallow, retained; golden files
#   tests/e2e/expected/devtools/*.classes.tsv from heap-snapshot-toolkit 1.1.3 written by
#   scripts/golden-devtools.sh), and its heap_total equals DevTools' total;
# - `top` ranks by DevTools' retained sizes: the per-class view repeats histo's numbers;
# - `path` is DevTools' distance-based retaining path: one hop per unit of distance, no weak
#   edge, ending at heap-1's `keep` InitialObject through `refs`;
# - `show` prints DevTools' retained size and distance, and on a Node snapshot written with
#   allocation tracking (tests/programs/node/v8_alloc_trace.js, needs node) the allocation
#   stack of an object created in a known function.
set -euo pipefail
: "${LEAKRAY:?}" "${LEAKRAY_SRC:?}" "${LEAKRAY_BUILD:?}"
fx="${LEAKRAY_FIXTURES:-$LEAKRAY_SRC/../shared/fixtures}/v8"
if [ ! -f "$fx/SOURCES.md" ]; then
    if [ "${CI:-}" = true ]; then echo "FAIL: fixtures missing in $fx" >&2; exit 1; fi
    echo "SKIP: fixtures not found in $fx"
    exit 77
fi
command -v python3 >/dev/null || { echo "SKIP: python3 not installed"; exit 77; }
work="$LEAKRAY_BUILD/tmp/v8_cli"
rm -rf "$work"
mkdir -p "$work"
fail() { echo "FAIL: $*" >&2; exit 1; }
gold="$LEAKRAY_SRC/tests/e2e/expected/devtools"

# 1. histo --retained --json against DevTools, every fixture, every class.
n=0
for f in "$fx"/*.heapsnapshot "$fx"/*.heapsnapshot.gz; do
    b=$(basename "$f")
    [ -f "$gold/$b.classes.tsv" ] || fail "no golden for $b"
    "$LEAKRAY" histo --retained --json --no-timing "$f" > "$work/$b.json" || fail "histo $b"
    python3 - "$work/$b.json" "$gold/$b.classes.tsv" <<'PY' || fail "histo $b differs from DevTools"
import json, sys
doc = json.load(open(sys.argv[1]))
esc = lambda s: s.replace('\\', '\\\\').replace('\t', '\\t').replace('\n', '\\n')
got = {}
for c in doc["classes"]:
    k = esc(c["key"])
    if k in got:
        sys.exit("duplicate key %r" % k)
    got[k] = (esc(c["name"]), c["count"], c["distance"], c["shallow"], c["retained"])
want, total = {}, None
for line in open(sys.argv[2], encoding="utf-8"):
    p = line.rstrip("\n").split("\t")
    if p[0] == "#total":
        total = int(p[1]); continue
    want[p[0]] = (p[1], int(p[2]), int(p[3]), int(p[4]), int(p[5]))
bad = [k for k in set(got) | set(want) if got.get(k) != want.get(k)]
for k in sorted(bad)[:5]:
    print("  %r: devtools %s, leakray %s" % (k, want.get(k), got.get(k)), file=sys.stderr)
if bad:
    sys.exit("%d of %d classes differ" % (len(bad), len(want)))
if doc["total"]["heap_total"] != total:
    sys.exit("heap_total %d, devtools %d" % (doc["total"]["heap_total"], total))
if doc.get("model") != "devtools":
    sys.exit("model is not devtools")
PY
    n=$((n + 1))
done
[ "$n" -ge 11 ] || fail "only $n fixtures compared"
echo "histo: $n fixtures equal DevTools' Summary"
