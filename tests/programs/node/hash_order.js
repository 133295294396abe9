// SPDX-License-Identifier: Apache-2.0
// hash_order.js OUT: a program whose leaks are reached through objects V8 lists in the order
// of a hash seeded anew in each process (`global`, and a dictionary-mode object of its own),
// equally short ways in by several names. Run it with different --hash-seed values: the
// heap is the same, the snapshot lists those properties in another order.
'use strict';
const v8 = require('v8');

class Session {
    constructor(i) {
        this.id = i;
        this.buf = new Array(8).fill(i);
    }
}

// In a function: nothing it makes stays on the stack when the snapshot is written.
function setUp() {
    const cache = new Map();
    for (let i = 0; i < 400; i++)
        cache.set(i, new Session(i));
    // Many properties added, one deleted: V8 keeps this object as a dictionary.
    const registry = {};
    for (let i = 0; i < 64; i++)
        registry['slot' + i] = {i};
    delete registry.slot0;
    registry.alpha = cache;
    registry.beta = cache;
    registry.gamma = cache;
    registry.delta = cache;
    globalThis.registry = registry;
    // Timers never cleared: their lists are reached through every timer function of global.
    for (let i = 0; i < 20; i++)
        setInterval(poll, 1e7);
    // Each Beat is kept by two intervals of two periods: Node's timer lists are keyed by
    // period in a number-keyed dictionary, listed in the hash's order too.
    for (let i = 0; i < 10; i++) {
        const b = new Beat(i);
        setInterval(() => b.log.length, 3e7);
        setInterval(() => b.log.length, 5e7);
    }
}
function poll() {}
class Beat {
    constructor(i) {
        this.log = new Array(16).fill(i);
    }
}

setUp();
global.gc();
v8.writeHeapSnapshot(process.argv[2]);
process.exit(0);
