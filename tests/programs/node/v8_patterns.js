// SPDX-License-Identifier: Apache-2.0
// v8_patterns.js: five leak patterns a Node service meets, each with its own class so a
// verb's answer can be checked per pattern, and three snapshots (baseline, target, final) as
// memlab's find-leaks takes them:
//   1. ScopeBlob: a closure kept in a registry whose scope holds a big object it never uses
//      (V8 keeps one context per scope: a sibling closure's use keeps it in the context);
//   2. ListenerState: 'data' listeners added to one EventEmitter per request, never removed;
//   3. RequestRecord: a Map cache keyed by the request object, never evicted;
//   4. TickPayload: setInterval callbacks never cleared, each holding its payload;
//   5. WeakTarget: objects only a WeakRef and a FinalizationRegistry reach (not a leak:
//      collected), and PinnedTarget: the same, plus a strong array (a leak).
// usage: node --expose-gc v8_patterns.js OUTDIR [N]  (N per pattern, default 200)
'use strict';
const v8 = require('v8');
const fs = require('fs');
const path = require('path');
const { EventEmitter } = require('events');

const out = process.argv[2] || '.';
const N = Number(process.argv[3] || 200);
fs.mkdirSync(out, { recursive: true });

class ScopeBlob { constructor(i) { this.i = i; this.data = new Array(64).fill(i); } }
class ListenerState { constructor(i) { this.i = i; this.seen = [i, i + 1]; } }
class RequestRecord { constructor(i) { this.i = i; this.body = 'body-' + i; } }
class Request { constructor(i) { this.url = '/item/' + i; } }
class TickPayload { constructor(i) { this.i = i; this.samples = new Array(16).fill(i); } }
class WeakTarget { constructor(i) { this.i = i; } }
class PinnedTarget { constructor(i) { this.i = i; } }

const registry = [];
function scopeLeak(i) {
    const blob = new ScopeBlob(i);
    const touch = () => blob.i;      // uses blob: blob goes into the shared context
    touch();
    registry.push(() => i);          // never uses blob, keeps the context all the same
}
const bus = new EventEmitter();
bus.setMaxListeners(0);
function listenerLeak(i) {
    const state = new ListenerState(i);
    bus.on('data', () => state.seen.length);
}
const cache = new Map();
function cacheLeak(i) { cache.set(new Request(i), new RequestRecord(i)); }
const timers = [];
function timerLeak(i) {
    const p = new TickPayload(i);
    timers.push(setInterval(() => p.samples.length, 1 << 30));
}
const weakRefs = [], pinned = [];
const fin = new FinalizationRegistry(() => {});
function weakCase(i) {
    const w = new WeakTarget(i);
    weakRefs.push(new WeakRef(w));
    fin.register(w, i);
    const p = new PinnedTarget(i);
    weakRefs.push(new WeakRef(p));
    fin.register(p, i);
    pinned.push(p);
}

function snap(name) {
    global.gc();
    global.gc();
    v8.writeHeapSnapshot(path.join(out, name + '.heapsnapshot'));
}
snap('baseline');
for (let i = 0; i < N; i++) {
    scopeLeak(i);
    listenerLeak(i);
    cacheLeak(i);
    timerLeak(i);
    weakCase(i);
}
snap('target');
// WeakRef targets stay alive until the end of the job that created them: give the loop a turn
setTimeout(() => {
    snap('final');
    for (const t of timers)
        clearInterval(t);
}, 10);
