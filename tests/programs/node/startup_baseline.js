// SPDX-License-Identifier: Apache-2.0
// startup_baseline.js: the three snapshots of one Node process, the baseline taken as the
// program starts. Node's own start-up objects of about 20 shapes (V8 names an object without
// a constructor by its properties: `{constructor, dispatch, disconnect}`) are gone by the
// target, which has 20 request handler classes (code loaded later, as a lazily required
// module's) and the stdout stream's that the baseline lacks: each side has class names of
// its own, as one program's snapshots do. 2,000 Order objects leak through a module-level
// array from the target to the final.
// Usage: node --expose-gc startup_baseline.js DIR
const v8 = require('v8');
const path = require('path');
const dir = process.argv[2];
const snap = (name) => {
    global.gc();
    v8.writeHeapSnapshot(path.join(dir, name));
};
snap('s1-baseline.heapsnapshot');
class Order {
    constructor(i) {
        this.id = i;
        this.lines = [{ sku: 'sku-' + i, qty: i % 7 }];
    }
}
const handlers = [];
for (let k = 0; k < 20; k++) {
    const name = 'Handler' + k;
    const C = eval('(class ' + name + " { constructor() { this.route = '/r" + k + "'; } })");
    handlers.push(new C());
}
const kept = [];
console.log('serving', handlers.length);
for (let i = 0; i < 2000; i++)
    kept.push(new Order(i));
snap('s2-target.heapsnapshot');
console.log('done', kept.length);
snap('s3-final.heapsnapshot');
