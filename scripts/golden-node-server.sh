#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# golden-node-server.sh: retakes the snapshots of tests/programs/node/node_server.js in its
# `timer` mode (200 intervals never cleared, their handles dropped: Node's timer list alone
# holds them) and the peers' answers on them, which tests/e2e/node_server.sh compares leakray
# against. Writes, always together (ids change run to run):
#   tests/data/v8/node-server-timer-{baseline,target,final}.heapsnapshot.xz
#   tests/e2e/expected/devtools/node-server-timer-final.heapsnapshot.xz.classes.tsv
#       DevTools' Summary (golden-devtools.sh)
#   tests/e2e/expected/devtools/node-server-timer-final.top.tsv   DevTools' numbers for the
#       100 objects retaining most (v8-peers.bash)
#   tests/e2e/expected/js/node-server-timer-memlab.txt   memlab 2.0.5 find-leaks on the trio:
#       its default answer's count line, then its --trace-all-objects table (v8-peers.bash)
# The system Node runs the program with bytecode flushing (less code in the heap, the same
# format) from a scratch folder, written `/app` (its output folder `/out`) in the snapshots'
# strings; the files are xz-compressed (about 650 kB each). npm packages go to scratch folders
# outside the repository.
# usage: scripts/golden-node-server.sh
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/golden-node-server.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
export LC_ALL=C

. "$src/scripts/v8-peers.bash"
data=$src/tests/data/v8
mkdir -p "$data" "$src/tests/e2e/expected/js" "$tmp/app"
cp "$src/tests/programs/node/node_server.js" "$tmp/app/"
echo "golden-node-server: $(node --version) (V8 $(node -p process.versions.v8))" >&2
(cd "$tmp/app" && node --expose-gc --stress-flush-code --flush-bytecode node_server.js timer \
    "$tmp/snap" 200)
for k in baseline target final; do
    # the scratch folder appears in script names, argv and the output path: strings of the
    # JSON, which nothing indexes into by length
    sed "s#$tmp/app#/app#g; s#$tmp#/out#g" "$tmp/snap/$k.heapsnapshot" >"$tmp/$k.heapsnapshot"
    if grep -q "$tmp" "$tmp/$k.heapsnapshot"; then
        echo "golden-node-server: $tmp still in $k" >&2
        exit 1
    fi
    xz -9e -T1 -c "$tmp/$k.heapsnapshot" >"$data/node-server-timer-$k.heapsnapshot.xz"
done

final=$data/node-server-timer-final.heapsnapshot.xz
mkdir -p "$tmp/nofix/v8"
LEAKRAY_FIXTURES=$tmp/nofix HST_DIR=$tmp/hst "$src/scripts/golden-devtools.sh" "$final"
devtools_top "$tmp/hst" "$tmp/final.heapsnapshot" \
    "$src/tests/e2e/expected/devtools/node-server-timer-final.top.tsv"

memlab_install "$tmp/ml"
memlab() {
    node --expose-gc --max-old-space-size=4096 "$tmp/ml/node_modules/@memlab/cli/bin/memlab.js" \
        find-leaks --baseline "$tmp/baseline.heapsnapshot" --target "$tmp/target.heapsnapshot" \
        --final "$tmp/final.heapsnapshot" "$@"
}
memlab --work-dir "$tmp/w1" >"$tmp/def.out" 2>"$tmp/def.err"
memlab --trace-all-objects --work-dir "$tmp/w2" >"$tmp/all.out" 2>"$tmp/all.err"
memlab_golden "$tmp/def.err" "$tmp/all.out" \
    >"$src/tests/e2e/expected/js/node-server-timer-memlab.txt"
echo "golden-node-server: wrote 3 snapshots and the peers' answers" >&2
