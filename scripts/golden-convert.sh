#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# golden-convert.sh: regenerates what Chrome DevTools computes for HPROF fixtures converted
# by `leakray convert`, the reference tests/e2e/convert_hprof.sh compares leakray's own
# per-class numbers against. DevTools' worker code runs through heap-snapshot-toolkit@1.1.3
# (npm), installed into a scratch folder outside the repository ($HST_DIR, default
# ${TMPDIR:-/tmp}/leakray-hst, kept so the e2e test can also compare live).
# Output: tests/e2e/expected/convert/<fixture>.classes.tsv:
#   first line `#total<TAB><DevTools total heap size>`
#   then       `name<TAB>count<TAB>self<TAB>retained` per DevTools Summary row, sorted bytewise
# usage: scripts/golden-convert.sh [fixture-file...]   (default: RI.hprof sun_jdk6_18_x64.hprof)
#   LEAKRAY=path  the CLI to convert with (default: build/leakray)
#   HST_DIR=dir   where the toolkit is (or gets) installed
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
fix=${LEAKRAY_FIXTURES:-$src/../shared/fixtures}/hprof
out=${GOLDEN_OUT:-$src/tests/e2e/expected/convert}
leakray=${LEAKRAY:-$src/build/leakray}
hst=${HST_DIR:-${TMPDIR:-/tmp}/leakray-hst}
[ -x "$leakray" ] || { echo "golden-convert: no CLI at $leakray (set LEAKRAY)" >&2; exit 2; }
mkdir -p "$out" "$hst"
if [ ! -f "$hst/node_modules/heap-snapshot-toolkit/package.json" ]; then
    (cd "$hst" && { [ -f package.json ] || npm init -y >/dev/null; } && \
        npm install --no-audit --no-fund heap-snapshot-toolkit@1.1.3 >/dev/null)
fi
cat >"$hst/convert-classes.mjs" <<'JS'
import {createReadStream} from 'node:fs';
import {parse} from 'heap-snapshot-toolkit';
const esc = s => String(s).replace(/\\/g, '\\\\').replace(/\t/g, '\\t').replace(/\n/g, '\\n');
console.warn = () => {}; console.time = () => {}; console.timeEnd = () => {};
const snap = await parse(createReadStream(process.argv[2], 'utf-8'));
const agg = snap.aggregatesWithFilter({});
const rows = Object.values(agg).map(a => [esc(a.name), a.count, a.self, a.maxRet].join('\t'));
rows.sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
process.stdout.write(`#total\t${snap.getStatistics().total}\n` + rows.join('\n') + '\n');
JS
tmp=$(mktemp -d "${TMPDIR:-/tmp}/golden-cv.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
files=("$@")
[ ${#files[@]} -gt 0 ] || files=("$fix/RI.hprof" "$fix/sun_jdk6_18_x64.hprof")
export LC_ALL=C
for f in "${files[@]}"; do
    name=$(basename "$f")
    echo "golden-convert: $name" >&2
    "$leakray" convert "$f" -o "$tmp/$name.heapsnapshot" --no-timing >/dev/null
    node --max-old-space-size=8192 "$hst/convert-classes.mjs" "$tmp/$name.heapsnapshot" \
        >"$out/$name.classes.tsv"
done
