#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# golden-devtools.sh: regenerates the per-class Summary numbers Chrome DevTools computes for
# V8 .heapsnapshot files, the reference tests/unit/v8_test.c and tests/e2e/v8_*.sh compare
# leakray's DevTools aggregates against. DevTools' own worker code is run through
# heap-snapshot-toolkit@1.1.3 (npm), installed into a scratch folder outside the repository.
# Inputs: every fixture in $LEAKRAY_FIXTURES/v8 plus any extra files named on the command line
# (gzip and xz ones are inflated first). Output: tests/e2e/expected/devtools/<file>.classes.tsv:
#   first line  `#total<TAB><root retained + extra_native_bytes>`
#   then        `key<TAB>name<TAB>count<TAB>distance<TAB>self<TAB>retained`, sorted bytewise
# (key/name with \ tab newline written as \\ \t \n). Nothing is committed.
# usage: scripts/golden-devtools.sh [file.heapsnapshot[.gz|.xz]...]
#   HST_DIR=dir   reuse an existing install (default: a temp dir removed on exit)
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
fix=${LEAKRAY_FIXTURES:-$src/../shared/fixtures}/v8
out=${GOLDEN_OUT:-$src/tests/e2e/expected/devtools}
mkdir -p "$out"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/golden-dt.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
hst=${HST_DIR:-$tmp/hst}
if [ ! -f "$hst/node_modules/heap-snapshot-toolkit/package.json" ]; then
    mkdir -p "$hst"
    (cd "$hst" && npm init -y >/dev/null && \
        npm install --no-audit --no-fund heap-snapshot-toolkit@1.1.3 >/dev/null)
fi
cat >"$hst/classes.mjs" <<'EOF'
import {createReadStream} from 'node:fs';
import {parse} from 'heap-snapshot-toolkit';
const esc = s => String(s).replace(/\\/g, '\\\\').replace(/\t/g, '\\t').replace(/\n/g, '\\n');
const origWarn = console.warn; console.warn = () => {};
console.time = () => {}; console.timeEnd = () => {};
const snap = await parse(createReadStream(process.argv[2], 'utf-8'));
console.warn = origWarn;
const agg = snap.aggregatesWithFilter({});
const rows = Object.keys(agg).map(k => {
  const a = agg[k];
  return [esc(k), esc(a.name), a.count, a.distance, a.self, a.maxRet].join('\t');
});
rows.sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
process.stdout.write(`#total\t${snap.getStatistics().total}\n` + rows.join('\n') + '\n');
EOF
files=("$@")
if [ ${#files[@]} -eq 0 ]; then
    for f in "$fix"/*.heapsnapshot "$fix"/*.heapsnapshot.gz; do [ -f "$f" ] && files+=("$f"); done
fi
export LC_ALL=C
for f in "${files[@]}"; do
    name=$(basename "$f")
    case $name in
        *.gz) plain=$tmp/${name%.gz}; gzip -dc "$f" >"$plain" ;;
        *.xz) plain=$tmp/${name%.xz}; xz -dc "$f" >"$plain" ;;
        *) plain=$f ;;
    esac
    echo "golden-devtools: $name" >&2
    node --max-old-space-size=8192 "$hst/classes.mjs" "$plain" >"$out/$name.classes.tsv"
    [ "$plain" = "$f" ] || rm -f "$plain"
done
