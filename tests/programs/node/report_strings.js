// SPDX-License-Identifier: Apache-2.0
// report_strings.js: a Node program that keeps duplicated strings a heap report page must show
// as text, for tests/e2e/report_jsdupes.sh: markup with a closing script tag and an onerror
// handler, quotes and backslashes, line and paragraph separators with control characters, a
// lone surrogate, a 1,201-byte value whose 1,024-byte cut falls inside a two-byte character,
// a concatenation of five parts (three copies, each with parts of its own; V8 writes a flat
// string's name cut at 1,024 characters, a concatenation's value is its parts' names) and a marker the test rewrites into bytes that
// are not UTF-8. Each value is built at run time, so every
// copy is a heap string of its own and no copy is the source text's literal.
// usage: node report_strings.js OUT.heapsnapshot
'use strict';
const v8 = require('v8');

const out = process.argv[2] || 'report-strings.heapsnapshot';
const keep = [];
// fresh copies of a value: slicing and joining defeats literal interning
function copy(s) { return (' ' + s).slice(1).split('').join(''); }
function plant(v, n) {
  const a = [];
  for (let i = 0; i < n; i++) a.push(copy(v));
  keep.push(a);
}

plant(['</scr', 'ipt><scr', 'ipt>alert(5)</scr', 'ipt><img src=x onerror=alert(6)>'].join(''), 60);
plant('"double" \'single\' back\\slash `tick` &amp; &lt;', 50);
plant('line\u2028sep\u2029para\nnewline\ttab\u0001ctl', 45);
plant('lone\ud800surrogate', 35);
plant('BADUTF8-MARKER-0123456789', 30);
plant('x' + '\u00e9'.repeat(600), 40);
const longs = [];
for (let c = 0; c < 3; c++) {
  let s = copy('A'.repeat(1000));
  for (let i = 0; i < 3; i++) s = s + copy('B'.repeat(3000));
  longs.push(s + copy('-end'));
}
keep.push(longs);
globalThis.reportStrings = keep;
v8.writeHeapSnapshot(out);
