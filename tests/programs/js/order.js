// order.js: three snapshots with objects dying and being born between each, for the order
// checks of `leakray leaks`. Before the baseline: 300 Old kept. Between the baseline and the
// target: the Old dropped, 500 Leaked and 400 Temp made. Between the target and the final
// snapshot: the Temp dropped, 200 Late made. Writes baseline, target and final
// .heapsnapshot files into the folder given.
'use strict';
const v8 = require('v8');
const path = require('path');
const dir = process.argv[2];
class Old { constructor(i) { this.i = i; } }
class Leaked { constructor(i) { this.i = i; } }
class Temp { constructor(i) { this.i = i; } }
class Late { constructor(i) { this.i = i; } }
const keep = { old: [], leaked: [], temp: [], late: [] };
globalThis.keep = keep;
function snap(name) {
    global.gc();
    v8.writeHeapSnapshot(path.join(dir, name + '.heapsnapshot'));
}
for (let i = 0; i < 300; i++) keep.old.push(new Old(i));
snap('baseline');
keep.old = [];
for (let i = 0; i < 500; i++) keep.leaked.push(new Leaked(i));
for (let i = 0; i < 400; i++) keep.temp.push(new Temp(i));
snap('target');
keep.temp = [];
for (let i = 0; i < 200; i++) keep.late.push(new Late(i));
snap('final');
