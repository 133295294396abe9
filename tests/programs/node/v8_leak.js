// SPDX-License-Identifier: Apache-2.0
// v8_leak.js: writes Node.js heap snapshots with known leaks, for leakray's V8 tests and
// benchmarks. Three object leak sites (a global array, a module-level Map, a listener list),
// one closure leak (each Context keeps a payload alive), objects alive only in the target
// snapshot, a WeakMap/WeakRef pair and a detached-looking native-free string mix.
// usage: node --expose-gc v8_leak.js OUTDIR [SCALE]   (SCALE 1 = 50,000 objects per site)
// Writes OUTDIR/s1-baseline.heapsnapshot, s2-target.heapsnapshot, s3-final.heapsnapshot.
'use strict';
const v8 = require('v8'), fs = require('fs'), path = require('path');
const outDir = process.argv[2] || '.';
const N = Math.max(1, Math.round(50000 * Number(process.argv[3] || 1)));
fs.mkdirSync(outDir, {recursive: true});

class LeakedRecord {
  constructor(i) {
    this.id = i; this.name = 'record-' + i; this.values = [i, i + 1, i + 2, i + 3];
  }
}
globalThis.leakedRecords = [];
function leakSiteA(n) {
  for (let i = 0; i < n; i++) globalThis.leakedRecords.push(new LeakedRecord(i));
}

class CacheEntry {
  constructor(key) { this.key = key; this.meta = {created: key.length, tags: ['hot', 'cold']}; }
}
const requestCache = new Map();
globalThis.requestCache = requestCache;
function leakSiteB(n) {
  for (let i = 0; i < n; i++) { const k = 'req:' + i; requestCache.set(k, new CacheEntry(k)); }
}

class Subscriber { constructor(i) { this.index = i; this.state = {count: 0}; } }
const eventBus = {listeners: []};
globalThis.eventBus = eventBus;
function leakSiteC(n) { for (let i = 0; i < n; i++) eventBus.listeners.push(new Subscriber(i)); }

class ClosurePayload { constructor(i) { this.blob = new Array(8).fill(i); } }
globalThis.pendingCallbacks = [];
function registerCallback(i) {
  const payload = new ClosurePayload(i);
  globalThis.pendingCallbacks.push(function onDone() { return payload.blob.length; });
}
function leakClosures(n) { for (let i = 0; i < n; i++) registerCallback(i); }

// Ephemerons: values held by key + table, and a WeakRef that must not retain.
class WeakKey { constructor(i) { this.i = i; } }
class WeakValue { constructor(i) { this.payload = 'v'.repeat(16) + i; } }
globalThis.weakKeys = [];
globalThis.weakMap = new WeakMap();
globalThis.weakRefs = [];
function weakStuff(n) {
  for (let i = 0; i < n; i++) {
    const k = new WeakKey(i);
    globalThis.weakKeys.push(k);
    globalThis.weakMap.set(k, new WeakValue(i));
    globalThis.weakRefs.push(new WeakRef(k));
  }
}
// Non-ASCII names and strings exercise \uXXXX escapes, surrogate pairs included.
globalThis['ünïcödé_𝒳'] = {'clé': 'värde', 'emoji😀': '\u{1F600}'};

class TransientThing { constructor(i) { this.i = i; } }
globalThis.transient = null;

function snap(name) {
  if (global.gc) { global.gc(); global.gc(); }
  const f = path.join(outDir, name);
  v8.writeHeapSnapshot(f);
  console.log(`${name}: ${(fs.statSync(f).size / 1048576).toFixed(1)} MiB`);
}

leakSiteA(10);
globalThis.leakedRecords.length = 0;
snap('s1-baseline.heapsnapshot');
leakSiteA(N); leakSiteB(N); leakSiteC(N); leakClosures(N);
weakStuff(Math.max(1, N >> 4));
globalThis.transient = [];
for (let i = 0; i < N; i++) globalThis.transient.push(new TransientThing(i));
snap('s2-target.heapsnapshot');
globalThis.transient = null;
snap('s3-final.heapsnapshot');
