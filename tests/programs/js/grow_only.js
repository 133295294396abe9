// grow_only.js: the usual leak, where nothing dies between the snapshots: 800 Session each
// holding a small array are added after the baseline and kept through the final snapshot.
// Writes baseline, target and final .heapsnapshot files into the folder given. The order
// check of `leakray leaks` cannot use dead objects here: the baseline has almost none of its own.
'use strict';
const v8 = require('v8');
const path = require('path');
const dir = process.argv[2];
class Session { constructor(i) { this.i = i; this.tags = [i, i + 1, i + 2]; } }
globalThis.sessions = [];
function snap(name) {
    global.gc();
    v8.writeHeapSnapshot(path.join(dir, name + '.heapsnapshot'));
}
snap('baseline');
for (let i = 0; i < 800; i++) globalThis.sessions.push(new Session(i));
snap('target');
snap('final');
