#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# golden-bun.sh: retakes the V8-format heap snapshots Bun (JavaScriptCore) writes, of
# tests/programs/bun/bun_leak.js under two Bun versions whose object ids behave differently,
# and the peers' answers on them, which tests/e2e/v8_bun.sh compares leakray against:
#   Bun 1.3.0: ids are 24-bit numbers an object keeps from one snapshot to the next (a few
#              collide: two objects share an id), so memlab's method works;
#   Bun 1.4.5: ids 1 and 2 (the root, (GC roots)), then a counter that goes on from the
#              previous snapshot: no object keeps its id (1.3.14 already does so).
# Writes, always together (ids change run to run):
#   tests/data/v8/bun{13,14}-{baseline,target,final}.heapsnapshot.xz
#   tests/e2e/expected/devtools/<file>.classes.tsv      DevTools' Summary (golden-devtools.sh)
#   tests/e2e/expected/devtools/bun{13,14}-{baseline--*-target,target--*-final}.diff.tsv
#                                                       DevTools' Comparison (by id)
#   tests/e2e/expected/devtools/bun{13,14}-final.top.tsv DevTools' numbers for the 100
#                                                       objects retaining most
#   tests/e2e/expected/js/bun{13,14}-memlab.txt         memlab 2.0.5 find-leaks on the three
#                                                       snapshots: its default answer's count
#                                                       line, then its --trace-all-objects
#                                                       table (name, type, count, retained)
# The files are xz-compressed (30-70 kB each); the test inflates them with python3.
# Bun binaries: $BUN13 and $BUN14, else the npm package @oven/bun-linux-x64 at 1.3.0 / 1.4.5
# unpacked into $LEAKRAY_BUN_DIR (default /tmp/leakray-bun), outside the repository.
# usage: scripts/golden-bun.sh
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
bundir=${LEAKRAY_BUN_DIR:-/tmp/leakray-bun}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/golden-bun.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
export LC_ALL=C
. "$src/scripts/v8-peers.bash"
declare -A version=([13]=1.3.0 [14]=1.4.5)

bun_bin() { # bun_bin KEY -> path of that Bun's binary, fetched from npm when needed
    local var=BUN$1 v=${version[$1]}
    if [ -n "${!var:-}" ]; then echo "${!var}"; return; fi
    local b=$bundir/$v/package/bin/bun
    if [ ! -x "$b" ]; then
        mkdir -p "$bundir/$v"
        local tgz
        tgz=$(cd "$bundir" && npm pack --silent "@oven/bun-linux-x64@$v")
        tar xzf "$bundir/$tgz" -C "$bundir/$v"
        rm -f "$bundir/$tgz"
    fi
    echo "$b"
}

data=$src/tests/data/v8
gold=$src/tests/e2e/expected/devtools
mkdir -p "$data" "$gold" "$src/tests/e2e/expected/js"
files=()
for k in 13 14; do
    bin=$(bun_bin "$k")
    echo "golden-bun: Bun $("$bin" --version)" >&2
    "$bin" "$src/tests/programs/bun/bun_leak.js" "$tmp/b$k" 40
    for s in baseline target final; do
        xz -9e -T1 -c "$tmp/b$k/$s.heapsnapshot" >"$data/bun$k-$s.heapsnapshot.xz"
        files+=("$data/bun$k-$s.heapsnapshot.xz")
    done
done

hst=$tmp/hst
HST_DIR=$hst "$src/scripts/golden-devtools.sh" "${files[@]}"
for k in 13 14; do
    HST_DIR=$hst "$src/scripts/golden-devtools-diff.sh" \
        "$data/bun$k-baseline.heapsnapshot.xz" "$data/bun$k-target.heapsnapshot.xz" \
        "$data/bun$k-target.heapsnapshot.xz" "$data/bun$k-final.heapsnapshot.xz"
done
for k in 13 14; do
    devtools_top "$hst" "$tmp/b$k/final.heapsnapshot" "$gold/bun$k-final.top.tsv"
done

memlab_install "$tmp/ml"
for k in 13 14; do
    memlab() {
        node --expose-gc --max-old-space-size=4096 \
            "$tmp/ml/node_modules/@memlab/cli/bin/memlab.js" find-leaks \
            --baseline "$tmp/b$k/baseline.heapsnapshot" --target "$tmp/b$k/target.heapsnapshot" \
            --final "$tmp/b$k/final.heapsnapshot" "$@"
    }
    memlab --work-dir "$tmp/w1-$k" >"$tmp/def.out" 2>"$tmp/def.err"
    memlab --trace-all-objects --work-dir "$tmp/w2-$k" >"$tmp/all.out" 2>"$tmp/all.err"
    memlab_golden "$tmp/def.err" "$tmp/all.out" >"$src/tests/e2e/expected/js/bun$k-memlab.txt"
done
echo "golden-bun: wrote ${#files[@]} snapshots and their goldens" >&2
