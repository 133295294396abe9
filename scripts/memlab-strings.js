// SPDX-License-Identifier: Apache-2.0
// memlab-strings.js: runs memlab's StringAnalysis (`memlab analyze string`) on one snapshot
// through memlab's own API and prints what it computed as JSON, in full precision: the
// pattern statistics, the top-10 duplicated strings by count and by size, each with all its
// node ids. memlab's console listing rounds sizes and percents and shows 10 ids; the goldens
// need the exact figures. Used by scripts/golden-v8-strings.sh only (never at test time).
// usage: node memlab-strings.js NODE_MODULES_DIR FILE.heapsnapshot
'use strict';
const path = require('path');
const mods = process.argv[2];
const file = process.argv[3];
const ha = require(path.join(mods, '@memlab/heap-analysis'));
const core = require(path.join(mods, '@memlab/core'));
core.config.muteConsole = true;

(async () => {
  const a = new ha.StringAnalysis();
  a.print = () => {};
  await a.process({args: {_: [], snapshot: file, 'snapshot-dir': '<none>'}});
  const rec = r => ({str: r.str, n: r.n, size: r.size, ids: r.ids});
  const out = {
    patterns: Object.entries(a.stringPatternsStat).map(([name, s]) => ({
      name, n: s.n, dup_n: s.dupN, size: s.size, dup_size: s.dupSize,
    })),
    top_count: a.topDupStrInCnt.map(rec),
    top_size: a.topDupStrInSize.map(rec),
  };
  // one line per pattern and per ranked group: diffs stay readable, files small
  const lines = k => out[k].map(x => '  ' + JSON.stringify(x)).join(',\n');
  process.stdout.write('{"patterns": [\n' + lines('patterns') + '\n],\n"top_count": [\n' +
    lines('top_count') + '\n],\n"top_size": [\n' + lines('top_size') + '\n]}\n');
})().catch(e => { console.error(e); process.exit(1); });
