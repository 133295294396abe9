// SPDX-License-Identifier: Apache-2.0
// v8_watch_leaks.js: writes one Node.js heap snapshot whose leaks are held the ways closures
// hold things: a setInterval callback capturing a Poller, an EventEmitter listener capturing a
// RequestContext, a module-level Map (not on globalThis) holding CacheEntry values, and a
// memoizing closure's private Map holding Memo arrays wrapped in MemoEntry objects. A
// Discarded object referenced only through a WeakRef is no leak. Three GlobalHeld objects hang
// off globalThis, so their paths leave the snapshot root straight for the global object. The
// snapshot is written from a timer, once the module has returned, so no leak is held by a
// stack frame.
// usage: node v8_watch_leaks.js OUT.heapsnapshot
'use strict';
const v8 = require('v8');
const EventEmitter = require('events');
const N = 20;

class Poller { constructor(i) { this.samples = new Float64Array(256); this.i = i; } }
const timers = [];
for (let i = 0; i < N; i++) {
  const p = new Poller(i);
  timers.push(setInterval(() => p.samples[0]++, 1e9));
}

class RequestContext { constructor(i) { this.headers = {id: 'req-' + i}; this.body = new Array(64).fill(i); } }
const bus = new EventEmitter();
bus.setMaxListeners(0);
for (let i = 0; i < N; i++) {
  const ctx = new RequestContext(i);
  bus.on('tick', () => ctx.headers.id);
}

class CacheEntry { constructor(k) { this.key = k; this.value = new Array(32).fill(k); } }
const cache = new Map();
for (let i = 0; i < N; i++) cache.set('k' + i, new CacheEntry('k' + i));

class MemoEntry { constructor(v) { this.v = v; } }
function makeMemo() {
  const memo = new Map();
  return k => { if (!memo.has(k)) memo.set(k, new MemoEntry(new Array(16).fill(k))); return memo.get(k); };
}
const lookup = makeMemo();
for (let i = 0; i < N; i++) lookup('m' + i);

class GlobalHeld { constructor(i) { this.i = i; } }
globalThis.heldItems = [new GlobalHeld(0), new GlobalHeld(1), new GlobalHeld(2)];

class Discarded { constructor() { this.x = 1; } }
const weak = new WeakRef(new Discarded());

setTimeout(() => {
  v8.writeHeapSnapshot(process.argv[2]);
  for (const t of timers) clearInterval(t);
  // keep everything above alive until the snapshot is written
  if (bus.listenerCount('tick') + cache.size + (lookup('m0') ? 1 : 0) < 0) console.log(weak);
}, 10);
