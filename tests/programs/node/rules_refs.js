// SPDX-License-Identifier: Apache-2.0
// rules_refs.js OUT: ten destroyed Widgets kept by a Registry's `listeners` array (a library's
// registry, as a rules file would name it), reached from global.registry only; and three
// destroyed Panels each captured by a callback's scope (variable `panel`) a bus holds.
'use strict';
const v8 = require('v8');

class Widget {
    constructor(n) {
        this.name = 'w' + n;
        this.destroyed = false;
        this.buf = new Array(20).fill(n);
    }
}
class Registry {
    constructor() {
        this.listeners = [];
        this.other = [];
    }
}
// In a function: nothing it makes stays on the stack when the snapshot is written.
function setUp() {
    const registry = new Registry();
    for (let i = 0; i < 10; i++) {
        const w = new Widget(i);
        registry.listeners.push(w);
        w.destroyed = true;
    }
    globalThis.registry = registry;
}
setUp();
class Panel {
    constructor(n) {
        this.name = 'p' + n;
        this.destroyed = true;
    }
}
globalThis.bus = {callbacks: []};
function mount(n) {
    const panel = new Panel(n);
    bus.callbacks.push(function onEvent() { return panel.name; });
}
for (let i = 0; i < 3; i++)
    mount(i);
global.gc();
v8.writeHeapSnapshot(process.argv[2]);
