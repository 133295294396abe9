#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# golden-devtools-diff.sh: regenerates what Chrome DevTools' Comparison view shows for pairs
# of V8 .heapsnapshot files, the reference tests/e2e/browser_devtools.sh compares `leakray diff`
# against. DevTools' own worker code runs through heap-snapshot-toolkit@1.1.3 (npm), installed
# into a scratch folder outside the repository, the way the panel does it
# (HeapSnapshotDataGrids.ts): the base snapshot is aggregated with the interface definitions of
# the snapshot it is compared with (aggregatesForDiff), then calculateSnapshotDiff merges each
# class key's id lists. Output: tests/e2e/expected/devtools/<base>--<other>.diff.tsv, one row
# per changed class key: `key<TAB>name<TAB>new<TAB>deleted<TAB>alloc_size<TAB>freed_size`,
# sorted bytewise (key/name with \ tab newline written as \\ \t \n).
# usage: scripts/golden-devtools-diff.sh BASE OTHER [BASE OTHER...]   (gzip, xz files inflated)
#   HST_DIR=dir   reuse an existing install (default: a temp dir removed on exit)
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
out=${GOLDEN_OUT:-$src/tests/e2e/expected/devtools}
[ $# -ge 2 ] && [ $(($# % 2)) -eq 0 ] || { echo "usage: $0 BASE OTHER [BASE OTHER...]" >&2; exit 2; }
mkdir -p "$out"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/golden-dtdiff.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
hst=${HST_DIR:-$tmp/hst}
if [ ! -f "$hst/node_modules/heap-snapshot-toolkit/package.json" ]; then
    mkdir -p "$hst"
    (cd "$hst" && npm init -y >/dev/null && \
        npm install --no-audit --no-fund heap-snapshot-toolkit@1.1.3 >/dev/null)
fi
cat >"$hst/diff.mjs" <<'JS'
import {createReadStream} from 'node:fs';
import {parse} from 'heap-snapshot-toolkit';
const esc = s => String(s).replace(/\\/g, '\\\\').replace(/\t/g, '\\t').replace(/\n/g, '\\n');
console.warn = () => {}; console.time = () => {}; console.timeEnd = () => {};
const base = await parse(createReadStream(process.argv[2], 'utf-8'));
const other = await parse(createReadStream(process.argv[3], 'utf-8'));
const baseAggregates = base.aggregatesForDiff(other.interfaceDefinitions());
const diff = other.calculateSnapshotDiff(base.uid, baseAggregates);
const rows = Object.keys(diff).map(k => {
  const d = diff[k];
  return [esc(k), esc(d.name), d.addedCount, d.removedCount, d.addedSize, d.removedSize]
      .join('\t');
});
rows.sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
process.stdout.write(rows.join('\n') + (rows.length ? '\n' : ''));
JS
export LC_ALL=C
plain() { # plain FILE -> a path to its uncompressed bytes
    case $1 in
        *.gz) local p; p=$tmp/$(basename "${1%.gz}"); [ -f "$p" ] || gzip -dc "$1" >"$p"; echo "$p" ;;
        *.xz) local p; p=$tmp/$(basename "${1%.xz}"); [ -f "$p" ] || xz -dc "$1" >"$p"; echo "$p" ;;
        *) echo "$1" ;;
    esac
}
while [ $# -ge 2 ]; do
    a=$1 b=$2
    shift 2
    na=$(basename "$a"); nb=$(basename "$b")
    echo "golden-devtools-diff: $na -> $nb" >&2
    node --max-old-space-size=8192 "$hst/diff.mjs" "$(plain "$a")" "$(plain "$b")" \
        >"$out/${na%%.heapsnapshot*}--${nb%%.heapsnapshot*}.diff.tsv"
done
