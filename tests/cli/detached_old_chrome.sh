#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# detached_old_chrome.sh: a browser snapshot written before Chrome had the `detachedness`
# node field (2021) marks detached DOM nodes only by their "Detached " names, none attached.
# `--detached` takes it for a browser page's by its document and window natives: it was
# refused as a heap with no DOM. The old-style file is made at test time from the real
# Chromium snapshot in tests/data/browser: the field dropped, each detached native renamed
# "Detached <name>", as DevTools reads such a file.
set -euo pipefail
. "$(dirname "$0")/lib/common.bash"
cli_init detached-old-chrome
command -v python3 >/dev/null || skip "no python3"
src=$LEAKRAY_SRC/tests/data/browser/browser-final.heapsnapshot.gz
python3 - "$src" "$T/old.heapsnapshot" <<'PY'
import gzip, json, sys
s = json.load(gzip.open(sys.argv[1], 'rt'))
meta = s['snapshot']['meta']
nf = meta['node_fields']
k = len(nf)
di, ni, ti = nf.index('detachedness'), nf.index('name'), nf.index('type')
native = meta['node_types'][0].index('native')
strings, names, out = s['strings'], {}, []
nodes = s['nodes']
for i in range(0, len(nodes), k):
    row = nodes[i:i + k]
    if row[di] == 2 and row[ti] == native:
        nm = 'Detached ' + strings[row[ni]]
        if nm not in names:
            names[nm] = len(strings)
            strings.append(nm)
        row[ni] = names[nm]
    del row[di]
    out.extend(row)
s['nodes'] = out
del nf[di]
ef = meta['edge_fields']
to = ef.index('to_node')
edges = s['edges']
for j in range(to, len(edges), len(ef)):
    edges[j] = edges[j] // k * (k - 1)
json.dump(s, open(sys.argv[2], 'w'), separators=(',', ':'))
PY
run histo "$T/old.heapsnapshot" --detached --no-timing
expect_rc 0
grep -q '^Total *[1-9]' "$T/out" || fail "no detached class listed: $(tail -3 "$T/out")"
grep -q 'Detached ' "$T/out" || fail "no Detached class: $(head -5 "$T/out")"
run clusters "$T/old.heapsnapshot" --detached --no-timing
expect_rc 0
expect_out '[1-9][0-9,]* clusters over [1-9][0-9,]* detached DOM objects'
echo "detached_old_chrome: ok"
