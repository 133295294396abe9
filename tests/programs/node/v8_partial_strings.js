// SPDX-License-Identifier: Apache-2.0
// v8_partial_strings.js OUT: strings whose text a V8 snapshot does not hold whole: 30
// different strings of 1,100 characters sharing their first 1,050 (V8 writes a string's first
// 1,024 characters), and a sliced string (V8 writes no text for it); beside them a short flat
// string and a concatenated one, whose text the snapshot has, and two concatenated ones it
// does not have whole: one of a cut string and a tail, one of the sliced string and a tail.
'use strict';
const v8 = require('v8');
globalThis.LONG = [];
for (let i = 0; i < 30; i++)
    LONG.push(('P'.repeat(1050) + 'unique-suffix-' + i + '-' + 'Q'.repeat(30)).split('').join(''));
const whole = 'S'.repeat(100) + Date.now();
globalThis.SLICE = whole.substring(5, 60);
globalThis.FLAT = ['flat-', 'text'].join('');
globalThis.CONS = FLAT + '-RIGHTPART-0123456789';
globalThis.LONGCONS = LONG[0] + '-THE-TAIL-0123456789';
globalThis.SLICECONS = SLICE + '-THE-TAIL-0123456789';
v8.writeHeapSnapshot(process.argv[2]);
