// SPDX-License-Identifier: Apache-2.0
// v8_cycles.js OUT: retain cycles that run through V8's internal edges, then a snapshot.
// SelfRef (5): a closure on the object it captures (SelfRef.cb -> closure.context ->
// Context.this). Bag (4): an array holding its owner (Bag.items -> Array.elements ->
// (object elements)[0]). Registry (3): a Map holding its owner (Registry.byName ->
// Map.table -> the table's value slot).
'use strict';
const v8 = require('v8');

class SelfRef {
  constructor(n) {
    this.n = n;
    this.cb = () => this.n;
  }
}
class Bag {
  constructor() {
    this.items = [];
    this.items.push(this);
  }
}
class Registry {
  constructor() {
    this.byName = new Map();
    this.byName.set('self', this);
  }
}

globalThis.kept = {
  selfRefs: Array.from({length: 5}, (_, i) => new SelfRef(i)),
  bags: Array.from({length: 4}, () => new Bag()),
  registries: Array.from({length: 3}, () => new Registry()),
};
v8.writeHeapSnapshot(process.argv[2]);
