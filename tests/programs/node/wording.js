// SPDX-License-Identifier: Apache-2.0
// wording.js: writes three small Node heap snapshots for tests/e2e/runtime_wording.sh: a
// baseline, then a target and a final holding 20 LeakedItem objects in a global array, the
// one at index 12 with a payload far bigger than the others', so that it is the biggest
// member of their cluster and the chain `leaks` prints for the cluster ends in element [12].
// usage: node wording.js OUTDIR   (writes baseline/target/final.heapsnapshot there)
'use strict';
const v8 = require('v8'), path = require('path');
const outDir = process.argv[2] || '.';

class LeakedItem {
  constructor(i, n) {
    this.index = i;
    this.payload = new Array(n).fill(i);
  }
}
globalThis.keptItems = [];
v8.writeHeapSnapshot(path.join(outDir, 'baseline.heapsnapshot'));
for (let i = 0; i < 20; i++)
  globalThis.keptItems.push(new LeakedItem(i, i === 12 ? 20000 : 10));
v8.writeHeapSnapshot(path.join(outDir, 'target.heapsnapshot'));
v8.writeHeapSnapshot(path.join(outDir, 'final.heapsnapshot'));
