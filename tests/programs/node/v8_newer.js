// SPDX-License-Identifier: Apache-2.0
// v8_newer.js: a small Node program with one known leak per pattern, each with its own class,
// written to check leakray on the snapshots of Node versions newer than the one the tests run
// on (scripts/golden-v8-newer.sh runs it under Node 22 and 24 and commits the result):
//   NewerClosureBlob   a closure kept in a registry whose scope holds a blob it never uses;
//   NewerMapValue      values of a Map keyed by request objects, never evicted;
//   NewerListener      'data' listeners added to one EventEmitter, never removed;
//   NewerTimerPayload  setInterval callbacks never cleared, each holding its payload;
//   NewerBufferOwner   each holds a 16 KiB Buffer and a 2,048-entry Float64Array (backing
//                      stores outside the JS heap: native sizes, ArrayBuffer data edges);
//   NewerDetached      each holds an ArrayBuffer whose contents were transferred away
//                      (a detached buffer, byteLength 0);
//   NewerPinned        reached by a WeakRef and a strong array (a leak), beside NewerWeakOnly,
//                      reached only by a WeakRef and a FinalizationRegistry (collected).
// NewerTransient objects exist in the target snapshot only. N per pattern (default 40).
// usage: node --expose-gc v8_newer.js OUTDIR [N]   writes OUTDIR/{baseline,target,final}
'use strict';
const v8 = require('v8');
const fs = require('fs');
const path = require('path');
const { EventEmitter } = require('events');

const out = process.argv[2] || '.';
const N = Number(process.argv[3] || 40);
fs.mkdirSync(out, { recursive: true });

class NewerClosureBlob { constructor(i) { this.i = i; this.data = new Array(32).fill(i); } }
class NewerMapKey { constructor(i) { this.url = '/newer/' + i; } }
class NewerMapValue { constructor(i) { this.i = i; this.body = 'newer-body-' + i; } }
class NewerListener { constructor(i) { this.i = i; this.seen = [i]; } }
class NewerTimerPayload { constructor(i) { this.i = i; this.samples = new Array(8).fill(i); } }
class NewerBufferOwner {
    constructor(i) { this.buf = Buffer.alloc(16384, i & 255); this.f64 = new Float64Array(2048); }
}
class NewerDetached {
    constructor(i) {
        this.i = i;
        this.ab = new ArrayBuffer(4096);
        structuredClone(this.ab, { transfer: [this.ab] }); // this.ab is now detached
    }
}
class NewerPinned { constructor(i) { this.i = i; } }
class NewerWeakOnly { constructor(i) { this.i = i; } }
class NewerTransient { constructor(i) { this.i = i; } }

const registry = [];
function closureLeak(i) {
    const blob = new NewerClosureBlob(i);
    const touch = () => blob.i;      // uses blob: blob goes into the shared context
    touch();
    registry.push(() => i);          // never uses blob, keeps the context all the same
}
const cache = new Map();
const bus = new EventEmitter();
bus.setMaxListeners(0);
const timers = [];
const owners = [], detached = [], pinned = [], weakRefs = [];
const fin = new FinalizationRegistry(() => {});
// One function per closure leak: closures made in one call share its context, so a listener
// and a timer made side by side would each keep the other's object.
function listenerLeak(i) {
    const state = new NewerListener(i);
    bus.on('data', () => state.seen.length);
}
function timerLeak(i) {
    const p = new NewerTimerPayload(i);
    const t = setInterval(() => p.samples.length, 1 << 30);
    t.unref();
    timers.push(t);
}
function leakAll(i) {
    closureLeak(i);
    cache.set(new NewerMapKey(i), new NewerMapValue(i));
    listenerLeak(i);
    timerLeak(i);
    owners.push(new NewerBufferOwner(i));
    detached.push(new NewerDetached(i));
    const w = new NewerWeakOnly(i);
    weakRefs.push(new WeakRef(w));
    fin.register(w, i);
    const q = new NewerPinned(i);
    weakRefs.push(new WeakRef(q));
    pinned.push(q);
}

function snap(name) {
    global.gc();
    global.gc();
    v8.writeHeapSnapshot(path.join(out, name + '.heapsnapshot'));
}
snap('baseline');
for (let i = 0; i < N; i++)
    leakAll(i);
globalThis.newerTransient = Array.from({ length: N }, (_, i) => new NewerTransient(i));
snap('target');
globalThis.newerTransient = null;
// WeakRef targets stay alive until the end of the job that created them: give the loop a turn
setTimeout(() => {
    snap('final');
    for (const t of timers)
        clearInterval(t);
}, 10);
