// SPDX-License-Identifier: Apache-2.0
// bun_leak.js: a small Bun program with one known leak per pattern, each with its own class,
// written to check leakray on the V8-format heap snapshots Bun (JavaScriptCore) writes
// (scripts/golden-bun.sh runs it and commits the result):
//   BunClosureBlob   a closure kept in a registry whose scope holds a blob it never uses;
//   BunMapValue      values of a Map keyed by request objects, never evicted;
//   BunCacheEntry    class instances held by a global cache object, each with an array;
//   BunBufferOwner   each holds a 16 KiB Uint8Array and a 2,048-entry Float64Array
//                    (ArrayBuffer backing stores);
//   BunPinned        reached by a WeakRef and a strong array (a leak), beside BunWeakOnly,
//                    reached only by a WeakRef (collected);
//   BunLeak          the planted leak: N instances in a module-level array.
// BunTransient objects exist in the target snapshot only. N per pattern (default 40).
// usage: bun bun_leak.js OUTDIR [N]   writes OUTDIR/{baseline,target,final}.heapsnapshot
//   with Bun.generateHeapSnapshot("v8"); BUN_LEAK_API=node uses require('v8').writeHeapSnapshot,
//   as other runtimes do: node --expose-gc bun_leak.js, or Deno on a copy named .cjs
//   (deno run -A --v8-flags=--expose-gc bun_leak.cjs OUTDIR).
'use strict';
const fs = require('fs');
const path = require('path');

const out = process.argv[2] || '.';
const N = Number(process.argv[3] || 40);
fs.mkdirSync(out, { recursive: true });

class BunClosureBlob { constructor(i) { this.i = i; this.data = new Array(32).fill(i); } }
class BunMapKey { constructor(i) { this.url = '/bun/' + i; } }
class BunMapValue { constructor(i) { this.i = i; this.body = 'bun-body-' + i; } }
class BunCacheEntry { constructor(i) { this.key = 'k' + i; this.hits = [i, i + 1, i + 2]; } }
class BunBufferOwner {
    constructor(i) { this.u8 = new Uint8Array(16384).fill(i & 255); this.f64 = new Float64Array(2048); }
}
class BunPinned { constructor(i) { this.i = i; } }
class BunWeakOnly { constructor(i) { this.i = i; } }
class BunLeak { constructor(i) { this.i = i; this.payload = { n: i, tag: 'leak-' + i }; } }
class BunTransient { constructor(i) { this.i = i; } }

const registry = [];
function closureLeak(i) {
    const blob = new BunClosureBlob(i);
    const touch = () => blob.i;      // uses blob: blob goes into the shared scope
    touch();
    registry.push(() => i);          // never uses blob, may keep the scope all the same
}
const cache = new Map();
globalThis.bunCache = {};
const owners = [], pinned = [], weakRefs = [], leaked = [];
function leakAll(i) {
    closureLeak(i);
    cache.set(new BunMapKey(i), new BunMapValue(i));
    globalThis.bunCache['entry' + i] = new BunCacheEntry(i);
    owners.push(new BunBufferOwner(i));
    weakRefs.push(new WeakRef(new BunWeakOnly(i)));
    const q = new BunPinned(i);
    weakRefs.push(new WeakRef(q));
    pinned.push(q);
    leaked.push(new BunLeak(i));
}

const bun = typeof Bun !== 'undefined';
function snap(name) {
    for (let i = 0; i < 2; i++)
        bun ? Bun.gc(true) : globalThis.gc();
    const file = path.join(out, name + '.heapsnapshot');
    if (!bun || process.env.BUN_LEAK_API === 'node')
        require('v8').writeHeapSnapshot(file);
    else
        fs.writeFileSync(file, Bun.generateHeapSnapshot('v8'));
}
snap('baseline');
for (let i = 0; i < N; i++)
    leakAll(i);
globalThis.bunTransient = Array.from({ length: N }, (_, i) => new BunTransient(i));
snap('target');
globalThis.bunTransient = null;
// WeakRef targets stay alive until the end of the job that created them: give the loop a turn
setTimeout(() => snap('final'), 10);
