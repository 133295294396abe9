// SPDX-License-Identifier: Apache-2.0
// weakmap.js: a WeakMap whose entries outlive the action that made them: 100 keys the program
// keeps in an array (the leak), each with a value in a WeakMap (what it costs), and 50
// entries whose keys were dropped (gone after a GC, no leak). Writes baseline, target and
// final snapshots to OUTDIR.
//   node --expose-gc weakmap.js OUTDIR
'use strict';
const v8 = require('v8');
const fs = require('fs');
const path = require('path');

const outDir = process.argv[2] || '.';
fs.mkdirSync(outDir, { recursive: true });

class SessionKey { constructor(i) { this.id = i; } }
class SessionData { constructor(i) { this.id = i; this.rows = new Array(16).fill(i); } }

const cache = new WeakMap();
globalThis.sessionCache = cache;
globalThis.openSessions = [];

function work() {
    for (let i = 0; i < 100; i++) {
        const k = new SessionKey(i);
        globalThis.openSessions.push(k);
        cache.set(k, new SessionData(i));
    }
    for (let i = 0; i < 50; i++) cache.set(new SessionKey(1000 + i), new SessionData(1000 + i));
}

function snap(name) {
    if (global.gc) global.gc();
    v8.writeHeapSnapshot(path.join(outDir, name));
}
snap('baseline.heapsnapshot');
work();
snap('target.heapsnapshot');
snap('final.heapsnapshot');
