#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# browser.sh: a real Chromium page with three planted leaks (tests/programs/browser/page.html:
# 250 detached DOM panels kept in an array, 300 `resize` listeners holding closures, a
# 5,000-entry Map), three heap snapshots, and side by side on the same files:
#   - groups per planted cause: `leakray leaks --trace-all-objects` (top-level groups) vs
#     memlab 2.0.5's `find-leaks` (default rules, and --trace-all-objects), plus every other
#     top-level group above 1 % of the heap; and `leakray leaks` (memlab's default rules)
#     cluster by cluster against memlab's default (tests/e2e/memlab_leaks.py);
#   - the Comparison-view equality table: for each pair, the classes DevTools' own code
#     (heap-snapshot-toolkit 1.1.3, scripts/golden-devtools-diff.sh) shows as changed, the
#     classes `leakray diff` shows, and how many rows are equal (new, deleted, both sizes);
#   - wall time and peak RSS of the three-snapshot leak search, and the ratio.
# Snapshots: the committed tests/data/browser set, or LIVE=1 for fresh ones taken by headless
# Chromium (Debian's chromium, playwright-core from npm; tests/programs/browser/snap.mjs).
# npm packages are cached in ${LEAKRAY_BENCH_DIR:-/tmp/leakray-bench}/browser.
# usage: bench/browser.sh [path/to/leakray]
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
. "$src/bench/lib.sh"
lr=$(cd "$(dirname "${1:-$src/build/leakray}")" && pwd)/$(basename "${1:-$src/build/leakray}")
[ -x "$lr" ] || { echo "browser: no leakray at $lr" >&2; exit 2; }
command -v node >/dev/null || { echo "browser: node is required" >&2; exit 2; }
dir=$(bench_cache_dir)/browser
out=$dir/out
mkdir -p "$dir" "$out"
if [ ! -f "$dir/node_modules/memlab/package.json" ] ||
    [ ! -f "$dir/node_modules/heap-snapshot-toolkit/package.json" ] ||
    [ ! -f "$dir/node_modules/playwright-core/package.json" ]; then
    echo "installing memlab@2.0.5, heap-snapshot-toolkit@1.1.3, playwright-core into $dir ..."
    (cd "$dir" && { [ -f package.json ] || npm init -y >/dev/null; } &&
        PUPPETEER_SKIP_DOWNLOAD=1 PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm install --no-audit \
            --no-fund memlab@2.0.5 heap-snapshot-toolkit@1.1.3 playwright-core@1.65.1 >/dev/null)
fi
snaps=$dir/snaps
rm -rf "$snaps" && mkdir -p "$snaps"
if [ "${LIVE:-0}" = 1 ]; then
    node "$src/tests/programs/browser/snap.mjs" "$dir/node_modules/playwright-core" "$snaps"
    echo "snapshots: fresh, from headless $(${CHROMIUM:-/usr/bin/chromium} --version 2>/dev/null)"
else
    for s in baseline target final; do
        gzip -dc "$src/tests/data/browser/browser-$s.heapsnapshot.gz" >"$snaps/$s.heapsnapshot"
    done
    echo "snapshots: committed set tests/data/browser (Chromium 156)"
fi
B=$snaps/baseline.heapsnapshot T=$snaps/target.heapsnapshot F=$snaps/final.heapsnapshot
echo "machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"

# ---- leak groups ----
bench_measure lk "$out/leaks.json" "$lr" leaks --baseline "$B" --target "$T" --final "$F" \
    --json --no-timing --top 0
bench_measure lka "$out/leaks-all.json" "$lr" leaks --baseline "$B" --target "$T" \
    --final "$F" --json --no-timing --top 0 --trace-all-objects
ml() { # ml NAME ARGS...: memlab find-leaks with its own work dir
    local name=$1
    shift
    rm -rf "$dir/ml-$name" && mkdir -p "$dir/ml-$name"
    bench_measure "ml_$name" "$out/memlab-$name.txt" node --expose-gc --max-old-space-size=4096 \
        "$dir/node_modules/@memlab/cli/bin/memlab.js" find-leaks --baseline "$B" \
        --target "$T" --final "$F" --work-dir "$dir/ml-$name" "$@"
}
ml default
ml all --trace-all-objects
python3 - "$out/leaks-all.json" "$out/memlab-default.txt" "$out/memlab-all.txt" <<'PY'
import json, re, sys
CAUSES = ['detached DOM', 'resize listeners', 'Map entries']

def memlab_clusters(path):
    # memlab prints its tables on stdout and the leak clusters on stderr
    text = (open(path, errors='replace').read() + open(path + '.err', errors='replace').read())
    text = text.replace('\r', '\n')
    text = re.sub(r'\x1b\[[0-9;]*[A-Za-z]', '', text)
    out = []
    for block in re.split(r'\n--Similar leaks in this run: ', text)[1:]:
        n = int(block.split('--', 1)[0])
        m = re.search(r'--Retained size of leaked objects: ([^-]+)--', block)
        trace = block.split('\n\n', 1)[0]
        if 'detachedPanels' in trace or 'Detached <' in trace:
            cause = 'detached DOM'
        elif 'sessionCache' in trace:
            cause = 'Map entries'
        elif re.search(r'onResize|ResizePayload|EventListener', trace):
            cause = 'resize listeners'
        else:
            cause = None
        size = 0.0
        if m:
            num, unit = re.match(r'([0-9.]+)\s*(\w*)', m.group(1).strip()).groups()
            size = float(num) * {'KB': 1e3, 'MB': 1e6, 'GB': 1e9}.get(unit, 1)
        out.append((cause, n, size))
    return out

j = json.load(open(sys.argv[1]))
cl = j['clusters']
def top_of(c):
    while c['nested_in'] is not None:
        c = cl[c['nested_in'] - 1]
    return c['rank']
def cause_of(c):  # as tests/e2e/browser_check.py
    if c['count'] < 2:
        return None
    t = c['title']
    if t.startswith('Detached <div class="panel"> (detached tree roots)'):
        return 'detached DOM'
    if 'onResize' in t or 'ResizePayload' in t:
        return 'resize listeners'
    if t.startswith('jsobject {key, hits, tags}'):
        return 'Map entries'
    return None
tops = {}
for c in cl:
    k = cause_of(c)
    if k:
        tops.setdefault(k, set()).add(top_of(c))
planted = set().union(*tops.values()) if tops else set()
heap = j['heap_retained']
other = [c for c in cl if c['nested_in'] is None and c['rank'] not in planted
         and c['retained'] * 100 > heap]
mld, mla = memlab_clusters(sys.argv[2]), memlab_clusters(sys.argv[3])
print()
print('groups per planted cause (leakray: top-level groups of `leaks --trace-all-objects`;'
      ' memlab: leak clusters)')
print('%-22s %10s %16s %28s' % ('cause', 'leakray', 'memlab default', 'memlab --trace-all-objects'))
for k in CAUSES:
    ret = sum(cl[r - 1]['retained'] for r in tops.get(k, ()))
    print('%-22s %10s %16d %28d   leakray retained %d B' % (
        k, len(tops.get(k, ())), sum(1 for c in mld if c[0] == k),
        sum(1 for c in mla if c[0] == k), ret))
big = lambda c: c[0] is None and c[2] * 100 > heap
print('%-22s %10d %16d %28d' % ('other, above 1 % heap', len(other),
      sum(1 for c in mld if big(c)), sum(1 for c in mla if big(c))))
print('(memlab sizes as it prints them, in units of 1000 bytes; all its other clusters: %d / %d)'
      % (sum(1 for c in mld if c[0] is None), sum(1 for c in mla if c[0] is None)))
for c in other:
    print('  leakray other: #%d %s, %d B (%.1f %% of %d)' % (c['rank'], c['title'][:70],
          c['retained'], 100.0 * c['retained'] / heap, heap))
print('leakray: %d groups, %d top-level; memlab: %d clusters default, %d with --trace-all-objects'
      % (j['total_clusters'], j['top_level_clusters'], len(mld), len(mla)))
PY
sed 's/\x1b\[[0-9;]*[A-Za-z]//g' "$out/memlab-default.txt.err" | tr '\r' '\n' |
    sed -n '/^MemLab found/,$p' >"$out/memlab-default.clean.txt"
echo "leakray leaks (memlab's rules) against memlab default, cluster by cluster:"
python3 "$src/tests/e2e/memlab_leaks.py" "$out/leaks.json" "$out/memlab-default.clean.txt" \
    && echo "  equal" || echo "  different"
echo "leaks wall: leakray ${lk_wall} s (peak RSS $(bench_mb "$lk_rss") MB), memlab default" \
    "${ml_default_wall} s ($(bench_mb "$ml_default_rss") MB); --trace-all-objects: leakray" \
    "${lka_wall} s ($(bench_mb "$lka_rss") MB), memlab ${ml_all_wall} s" \
    "($(bench_mb "$ml_all_rss") MB)"
echo "ratio memlab/leakray wall: $(bench_ratio "$ml_default_wall" "$lk_wall")x default," \
    "$(bench_ratio "$ml_all_wall" "$lka_wall")x --trace-all-objects"

# ---- Comparison view equality ----
echo
echo "Comparison view: DevTools (heap-snapshot-toolkit) vs leakray diff, per class key"
printf '%-18s %18s %16s %12s %10s\n' pair "DevTools changed" "leakray changed" "rows equal" \
    "Detached"
gold=$out/golden
HST_DIR=$dir GOLDEN_OUT=$gold "$src/scripts/golden-devtools-diff.sh" "$B" "$T" "$T" "$F" \
    "$B" "$F" 2>/dev/null
for pair in "baseline target" "target final" "baseline final"; do
    set -- $pair
    "$lr" diff "$snaps/$1.heapsnapshot" "$snaps/$2.heapsnapshot" --json --no-timing \
        >"$out/diff.json"
    python3 - "$out/diff.json" "$gold/$1--$2.diff.tsv" "$1 -> $2" <<'PY'
import json, sys
esc = lambda s: s.replace('\\', '\\\\').replace('\t', '\\t').replace('\n', '\\n')
got = {esc(c['key']): (esc(c['name']), c['new'], c['deleted'], c['alloc_size'], c['freed_size'])
       for c in json.load(open(sys.argv[1]))['classes']}
want = {}
for line in open(sys.argv[2], encoding='utf-8'):
    p = line.rstrip('\n').split('\t')
    want[p[0]] = (p[1], int(p[2]), int(p[3]), int(p[4]), int(p[5]))
eq = sum(1 for k in want if got.get(k) == want[k])
det = sum(1 for k in want if want[k][0].startswith('Detached '))
print('%-18s %18d %16d %12d %10d' % (sys.argv[3], len(want), len(got), eq, det))
PY
done
