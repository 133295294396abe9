// SPDX-License-Identifier: Apache-2.0
// values.js: ten Widgets whose properties are JavaScript primitives a heap snapshot keeps as
// nodes: `destroyed` a boolean (true for the first four), `count` a small integer (0..9),
// `ratio` a heap number (i + 0.5), `label` null or undefined. Writes one snapshot, with
// numeric values, to the path given. Usage: node values.js OUT.heapsnapshot
'use strict';
const v8 = require('v8');

class Widget {
    constructor(i) {
        this.destroyed = i < 4;
        this.count = i;
        this.ratio = i + 0.5;
        this.label = i % 2 ? null : undefined;
    }
}

globalThis.widgets = [];
for (let i = 0; i < 10; i++)
    globalThis.widgets.push(new Widget(i));
v8.writeHeapSnapshot(process.argv[2], { exposeNumericValues: true });
