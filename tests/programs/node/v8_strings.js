// SPDX-License-Identifier: Apache-2.0
// v8_strings.js: a small Node program that keeps known duplicate strings, for `leakray dupes`
// against memlab's string analysis (scripts/golden-v8-strings.sh takes the snapshot and
// memlab's answer). Each shape memlab's definition treats on its own:
//   - the same JSON text parsed N times: equal flat strings, one object per parse;
//   - concatenations kept in arrays: concatenated strings (first + second), nested ones
//     (a concatenation of concatenations) and one over V8's 1,024-character name limit;
//   - slices of a long string: sliced strings (not counted themselves, but a concatenation
//     of a slice takes the whole parent's value, as memlab reads it);
//   - memlab's patterns: Relay data ids (Uzpf...), composite ids (123{"...), Relay queries,
//     client: strings, element class names (six 8-character words, one with an astral
//     character counted as two UTF-16 units);
//   - array-index-like values ("7", "42", "4294967294") beside non-index digit strings
//     ("007", "4294967295") with equal counts, so memlab's key order decides the ties;
//   - the same source text compiled by several `new Function` calls (JS code strings);
//   - non-ASCII values (accents, CJK, an emoji).
// usage: node --expose-gc v8_strings.js OUT.heapsnapshot [N]
'use strict';
const v8 = require('v8');

const out = process.argv[2] || 'strings.heapsnapshot';
const N = Number(process.argv[3] || 1000);
const keep = [];

// fresh copies of a value: slicing and joining defeats literal interning
function copy(s) { return (' ' + s).slice(1).split('').join(''); }

const text = JSON.stringify({ user: 'planted-user-name', city: 'Zürich-東京', id: 'Uzpf' + 'A1b2C3' });
const parsed = [];
for (let i = 0; i < N; i++) parsed.push(JSON.parse(text));
keep.push(parsed);

const cons = [];
const left = copy('planted-left-part-'), right = copy('planted-right-part');
for (let i = 0; i < 300; i++) cons.push(left + right);
for (let i = 0; i < 200; i++) cons.push((copy('nested-a-') + copy('nested-b-')) + (copy('nested-c-') + copy('nested-d')));
const long = copy('x'.repeat(900)) + copy('y'.repeat(900));
for (let i = 0; i < 250; i++) cons.push(long + copy('-tail-of-a-long-concatenation'));
keep.push(cons);

const base = copy('0123456789abcdefghijklmnopqrstuvwxyz-a-long-parent-string-for-slices');
const slices = [];
for (let i = 0; i < 50; i++) slices.push(base.substring(5, 40));
for (let i = 0; i < 30; i++) slices.push(base.substring(3, 30) + copy('-after-a-slice-part'));
keep.push(slices);

const pats = [];
for (let i = 0; i < 40; i++) pats.push(copy('UzpfSTEwMDA6MTIz'));
for (let i = 0; i < 35; i++) pats.push(copy('12345{"id":"composite"}'));
for (let i = 0; i < 30; i++) pats.push(copy('{"query_id":-7401558440803739294,"serialized":"abc"}'));
for (let i = 0; i < 25; i++) pats.push(copy('client:1234:planted'));
for (let i = 0; i < 45; i++) pats.push(copy('n00je7tq arfg74bv qs9ysxi8 k77z8yql i09qtzwb n7fi1qx3'));
for (let i = 0; i < 44; i++) pats.push(copy('n00je7tq arfg74bv qs9ysxi8 k77z8yql i09qtzwb n7fi1q😀'));
keep.push(pats);

const idx = [];
for (const v of ['4294967295', '007', '42', '7', '4294967294', '0', '-1', '1e3']) {
  for (let i = 0; i < 400; i++) idx.push(copy(v) + copy('0').slice(1));
}
keep.push(idx);

const fns = [];
for (let i = 0; i < 12; i++) fns.push(new Function('a', 'b', 'return a * b + ' + 'planted_source_marker'.length + ';'));
keep.push(fns);

const words = [];
for (let i = 0; i < 70; i++) words.push(copy('café crème brûlée'), copy('你好，世界'), copy('emoji 🎉 party'));
keep.push(words);

globalThis.__plantedStrings = keep;
if (global.gc) global.gc();
v8.writeHeapSnapshot(out);
console.log(out);
