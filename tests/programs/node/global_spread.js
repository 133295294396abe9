// SPDX-License-Identifier: Apache-2.0
// global_spread.js OUT: a script that leaks onto globalThis, one property per request, the
// values of ten shapes, so no one class, and no one property, holds a tenth of the heap:
// only `global` does.
'use strict';
const v8 = require('v8');

const shapes = [
    i => new Array(120).fill(i), i => ({a: new Array(110).fill(i)}), i => 'x'.repeat(900) + i,
    i => new Float64Array(110), i => new Map([[i, new Array(100).fill(i)]]),
    i => new Set([new Array(100).fill(i)]), i => [new Array(100).fill(i)],
    i => ({b: [new Array(100).fill(i)]}), i => Buffer.alloc(900), i => new Uint8Array(900),
];
function serve() {
    for (let i = 0; i < 4000; i++)
        globalThis['req_' + i] = shapes[i % 10](i);
}
serve();
global.gc();
v8.writeHeapSnapshot(process.argv[2]);
