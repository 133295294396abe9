// SPDX-License-Identifier: Apache-2.0
// pools.js: small Buffers kept in a global array, the way a header or id cache keeps
// Buffer.from() slices. Each slice pins the 8 KiB pool it was cut from: 100 slices alone in
// their pool (throw-away allocations use the rest of it), then 10 pairs that share one. The
// shared pools are dominated by the array, not by one Buffer, yet only Buffers refer to them.
//   node --expose-gc pools.js OUTDIR
'use strict';
const v8 = require('v8');
const fs = require('fs');
const path = require('path');

const outDir = process.argv[2] || '.';
fs.mkdirSync(outDir, { recursive: true });
globalThis.tags = [];
function snap(name) {
    global.gc();
    global.gc();
    v8.writeHeapSnapshot(path.join(outDir, name));
}
snap('pools-baseline.heapsnapshot');
for (let i = 0; i < 100; i++) {
    globalThis.tags.push(Buffer.from('tag' + i));
    Buffer.allocUnsafe(4000);
    Buffer.allocUnsafe(4000);
}
for (let i = 0; i < 10; i++) {
    globalThis.tags.push(Buffer.from('x' + i), Buffer.from('y' + i));
    Buffer.allocUnsafe(4000);
    Buffer.allocUnsafe(4000);
}
snap('pools-target.heapsnapshot');
snap('pools-final.heapsnapshot');
