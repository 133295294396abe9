#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# runtime_wording.sh: the verbs speak the runtime of the dump they read. On V8 snapshots
# (tests/data/v8/node24-final from Node 24, the Chromium page of tests/data/browser, and one
# Node writes here when it is installed), on a Dart snapshot (tests/programs/dart/dartheap.py)
# and on a Ruby heap (tests/programs/ruby/leaks.rb, when Ruby is installed):
# - `cycles` without a scope explains itself in the runtime's terms, never the JVM's;
# - the chains `leaks` and `clusters` print name each element by its index, as DevTools
#   (`--[0] (element)-->`), never `[]` (the label the clusters compare, which --json keeps in
#   `edge` beside the index in `name`);
# and HPROF output keeps its JVM wording (tests/e2e/identity.sh holds it byte for byte).
set -euo pipefail
: "${LEAKRAY:?}" "${LEAKRAY_SRC:?}" "${LEAKRAY_BUILD:?}"
command -v python3 >/dev/null || { echo "SKIP: python3 not installed"; exit 77; }
work="$LEAKRAY_BUILD/tmp/runtime_wording"
rm -rf "$work" && mkdir -p "$work"
fails=0
ok() { echo "ok: $*"; }
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }
# has FILE TEXT / hasnt FILE TEXT: a fixed string is (not) in the output.
has() { if grep -qF -- "$2" "$1"; then ok "$(basename "$1"): has '$2'"; else
    bad "$(basename "$1"): no '$2'"; sed -n 1,12p "$1"; fi; }
hasnt() { if grep -qF -- "$2" "$1"; then bad "$(basename "$1"): has '$2'"; grep -nF -- "$2" "$1" |
    head -3; else ok "$(basename "$1"): no '$2'"; fi; }
run() { local out=$1; shift; "$LEAKRAY" "$@" --no-timing >"$work/$out" 2>&1 || true; }

for n in baseline target final; do
    python3 -c "import lzma, shutil, sys
shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[2], 'wb'))" \
        "$LEAKRAY_SRC/tests/data/v8/node24-$n.heapsnapshot.xz" "$work/node-$n.heapsnapshot"
done
mv "$work/node-final.heapsnapshot" "$work/node.heapsnapshot"
v8s="node"
cp "$LEAKRAY_SRC/tests/data/browser/browser-final.heapsnapshot.gz" "$work/page.heapsnapshot.gz"
v8s="$v8s page"
v8file() { if [ "$1" = page ]; then echo "$work/page.heapsnapshot.gz"; else
    echo "$work/$1.heapsnapshot"; fi; }
python3 "$LEAKRAY_SRC/tests/programs/dart/dartheap.py" "$work/app.dartheap" new 5
others="$work/app.dartheap"
if command -v ruby >/dev/null; then
    ruby "$LEAKRAY_SRC/tests/programs/ruby/leaks.rb" "$work/ruby.json" "$work/ruby.counts"
    others="$others $work/ruby.json"
else
    echo "note: ruby not installed, the Ruby heap is left out"
fi

# ---- cycles: why the whole heap is not enumerated ----
for n in $v8s; do
    run "$n.cycles.txt" cycles "$(v8file "$n")"
    has "$work/$n.cycles.txt" "JavaScript heaps hold large components of functions"
    hasnt "$work/$n.cycles.txt" "JVM"
done
for f in $others; do
    run "$(basename "$f").cycles.txt" cycles "$f"
    has "$work/$(basename "$f").cycles.txt" "Cycles are not enumerated without a scope"
    hasnt "$work/$(basename "$f").cycles.txt" "JVM"
done

# ---- leaks and clusters: the representative's chain with its element indices ----
run node.leaks.txt leaks --baseline "$work/node-baseline.heapsnapshot" \
    --target "$work/node-target.heapsnapshot" --final "$work/node.heapsnapshot"
has "$work/node.leaks.txt" "--[0] (element)--> NewerBufferOwner"
hasnt "$work/node.leaks.txt" "--[] ("
run node.leaks.json leaks --json --baseline "$work/node-baseline.heapsnapshot" \
    --target "$work/node-target.heapsnapshot" --final "$work/node.heapsnapshot"
if python3 - "$work/node.leaks.json" <<'PY'; then
import json, sys
c = [c for c in json.load(open(sys.argv[1]))['clusters'] if c['title'] == 'NewerBufferOwner'][0]
last = c['chain'][-1]
assert (last['edge'], last['name'], last['edge_kind']) == ('[]', '[0]', 'element'), last
PY
    ok "leaks --json: the chain's element has edge [] and name [0]"
else
    bad "leaks --json: the chain's element has edge [] and name [0]"
fi
for n in $v8s; do
    run "$n.clusters.txt" clusters "$(v8file "$n")" --top 0
    hasnt "$work/$n.clusters.txt" "--[] ("
    has "$work/$n.clusters.txt" "--[1] (element)--> (GC roots)"
done
for f in $others; do
    run "$(basename "$f").clusters.txt" clusters "$f" --top 0
    hasnt "$work/$(basename "$f").clusters.txt" "--[] ("
done
has "$work/app.dartheap.clusters.txt" "--[0] (element)--> CheckoutPageState"

if [ "$fails" -gt 0 ]; then
    echo "$fails check(s) failed"
    exit 1
fi
echo "all checks passed"
