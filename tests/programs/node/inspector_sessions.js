// SPDX-License-Identifier: Apache-2.0
// inspector_sessions.js: two heap snapshots of one big heap that does not change (N objects of
// one class, 600,000 by default), each taken through a new node:inspector session. V8 numbers
// the heap afresh for each session, in heap order, so most ids name an object of the same
// class in both by that order alone; the strings' texts tell the numberings apart.
// OUT-1.heapsnapshot, OUT-2.heapsnapshot.
// Usage: node --expose-gc inspector_sessions.js OUT [N]
'use strict';
const inspector = require('inspector');
const fs = require('fs');
const n = +(process.argv[3] || 600000);
class Stable {
    constructor(i) { this.i = i; }
}
globalThis.stable = [];
for (let i = 0; i < n; i++)
    globalThis.stable.push(new Stable(i));
function take(file) {
    return new Promise((resolve, reject) => {
        const s = new inspector.Session();
        s.connect();
        const fd = fs.openSync(file, 'w');
        s.on('HeapProfiler.addHeapSnapshotChunk', m => fs.writeSync(fd, m.params.chunk));
        global.gc();
        s.post('HeapProfiler.takeHeapSnapshot', {}, e => {
            fs.closeSync(fd);
            s.disconnect();
            e ? reject(e) : resolve();
        });
    });
}
(async () => {
    await take(process.argv[2] + '-1.heapsnapshot');
    await take(process.argv[2] + '-2.heapsnapshot');
})();
