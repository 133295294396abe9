// SPDX-License-Identifier: Apache-2.0
// leaks.js: a Node program that leaks objects from six known call sites and writes three heap
// snapshots (baseline, target, final) for `leakray leaks` and `leakray clusters`.
//   node --expose-gc leaks.js OUTDIR [SCALE]
// Site counts (SCALE 1): records 1200, cache 900, listeners 700, callbacks 500, promises 300,
// proxies 200. Objects made between baseline and target but dropped before final
// (TransientThing) must not be reported. The counts are printed as "site NAME COUNT" lines.
'use strict';
const v8 = require('v8');
const fs = require('fs');
const path = require('path');
const { EventEmitter } = require('events');

const outDir = process.argv[2] || '.';
const scale = Number(process.argv[3] || 1);
const COUNTS = {
    records: Math.round(1200 * scale),
    cache: Math.round(900 * scale),
    listeners: Math.round(700 * scale),
    callbacks: Math.round(500 * scale),
    promises: Math.round(300 * scale),
    proxies: Math.round(200 * scale),
};
fs.mkdirSync(outDir, { recursive: true });

// Site 1: an array on a global.
class LeakedRecord {
    constructor(i) { this.id = i; this.name = 'record-' + i; this.values = [i, i + 1, i + 2]; }
}
globalThis.leakedRecords = [];
function leakRecords(n) { for (let i = 0; i < n; i++) globalThis.leakedRecords.push(new LeakedRecord(i)); }

// Site 2: a module-level Map.
class CacheEntry {
    constructor(key) { this.key = key; this.meta = { created: key.length, tags: ['hot', 'cold'] }; }
}
const requestCache = new Map();
globalThis.requestCache = requestCache;
function leakCache(n) { for (let i = 0; i < n; i++) { const k = 'req:' + i; requestCache.set(k, new CacheEntry(k)); } }

// Site 3: listeners added to an EventEmitter and never removed.
class ListenerState { constructor(i) { this.index = i; this.hits = 0; } }
const bus = new EventEmitter();
bus.setMaxListeners(0);
globalThis.bus = bus;
function leakListeners(n) {
    for (let i = 0; i < n; i++) {
        const state = new ListenerState(i);
        bus.on('tick', function onTick() { state.hits++; });
    }
}

// Site 4: closures whose contexts keep a payload alive.
class ClosurePayload { constructor(i) { this.blob = new Array(8).fill(i); } }
globalThis.pendingCallbacks = [];
function registerCallback(i) {
    const payload = new ClosurePayload(i);
    globalThis.pendingCallbacks.push(function onDone() { return payload.blob.length; });
}
function leakCallbacks(n) { for (let i = 0; i < n; i++) registerCallback(i); }

// Site 5: promises that never settle, each with a reaction.
class PendingRequest { constructor(i) { this.requestId = i; } }
globalThis.pendingPromises = [];
function leakPromises(n) {
    for (let i = 0; i < n; i++) {
        const req = new PendingRequest(i);
        const p = new Promise(() => {});
        p.then(function onSettled() { return req.requestId; });
        globalThis.pendingPromises.push(p);
    }
}

// Site 6: proxies kept in a global list.
class ProxiedModel { constructor(i) { this.modelId = i; this.dirty = false; } }
const observeHandler = { set(t, k, v) { t[k] = v; t.dirty = true; return true; } };
globalThis.observed = [];
function leakProxies(n) { for (let i = 0; i < n; i++) globalThis.observed.push(new Proxy(new ProxiedModel(i), observeHandler)); }

class TransientThing { constructor(i) { this.i = i; } }
globalThis.transient = null;

function snap(name) {
    if (global.gc) { global.gc(); global.gc(); }
    v8.writeHeapSnapshot(path.join(outDir, name));
}

// Warm every code path once so that code objects and shapes exist before the baseline.
leakRecords(2); leakCache(2); leakListeners(2); leakCallbacks(2); leakPromises(2); leakProxies(2);
globalThis.leakedRecords.length = 0; requestCache.clear(); bus.removeAllListeners('tick');
globalThis.pendingCallbacks.length = 0; globalThis.pendingPromises.length = 0;
globalThis.observed.length = 0;
snap('baseline.heapsnapshot');

leakRecords(COUNTS.records);
leakCache(COUNTS.cache);
leakListeners(COUNTS.listeners);
leakCallbacks(COUNTS.callbacks);
leakPromises(COUNTS.promises);
leakProxies(COUNTS.proxies);
globalThis.transient = [];
for (let i = 0; i < 1000; i++) globalThis.transient.push(new TransientThing(i));
snap('target.heapsnapshot');

globalThis.transient = null;
snap('final.heapsnapshot');
for (const [k, v] of Object.entries(COUNTS)) console.log(`site ${k} ${v}`);
