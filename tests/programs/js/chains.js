// SPDX-License-Identifier: Apache-2.0
// chains.js: leaks along chains whose links alternate two kinds of object, and one plain
// leak, in three heap snapshots (baseline, target, final) for `leakray leaks` and
// `leakray analyze --watch`.
//   node --expose-gc chains.js OUTDIR [N]
// Site 1: a promise chain that never settles (tail = tail.then(step)); each step's closure
// keeps a Step, every link Promise -> PromiseReaction -> Promise. Site 2: a list whose
// links alternate two classes (Entry.link -> Link.entry -> Entry ...), N entries. Site 3:
// N / 2 Conn objects in a global array.
'use strict';
const v8 = require('v8');
const fs = require('fs');
const path = require('path');

const outDir = process.argv[2] || '.';
const n = Number(process.argv[3] || 400);
fs.mkdirSync(outDir, { recursive: true });

class Step { constructor(i) { this.i = i; this.payload = new Array(4).fill(i); } }
class Entry { constructor(i) { this.i = i; this.link = null; this.payload = [i, i + 1]; } }
class Link { constructor(e) { this.entry = e; } }
class Conn { constructor(i) { this.id = 'conn-' + i; this.buf = new Array(8).fill(i); } }

globalThis.pending = {};
globalThis.entries = null;
globalThis.conns = [];

function work() {
    let release;
    const first = new Promise((resolve) => { release = resolve; });
    globalThis.pending.release = release; /* kept: the chain never settles, never goes */
    let tail = first;
    for (let i = 0; i < n; i++) {
        const s = new Step(i);
        tail = tail.then(function nextStep(v) { return s.i + v; });
    }
    let prev = null;
    for (let i = 0; i < n; i++) {
        const e = new Entry(i);
        if (prev) prev.link = new Link(e);
        else globalThis.entries = e;
        prev = e;
    }
    for (let i = 0; i < n / 2; i++) globalThis.conns.push(new Conn(i));
}

function snap(name) {
    if (global.gc) global.gc();
    v8.writeHeapSnapshot(path.join(outDir, name));
}
snap('baseline.heapsnapshot');
work();
snap('target.heapsnapshot');
snap('final.heapsnapshot');
