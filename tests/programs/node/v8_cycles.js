// SPDX-License-Identifier: Apache-2.0
// v8_cycles.js OUT: retain cycles that run through V8's internal edges, then a snapshot (in
// Node; a page loads the same script, tests/programs/browser/cycles.html).
// SelfRef (5): a closure on the object it captures (SelfRef.cb -> closure.context ->
// Context.this). Bag (4): an array holding its owner (Bag.items -> Array.elements ->
// (object elements)[0]). Registry (3): a Map holding its owner (Registry.byName ->
// Map.table -> the table's value slot). Through V8's other data edges: Bound (4), a bound
// method (`this.onClick = this.handle.bind(this)`: bound_this); Nested (4), a closure made in
// a nested block and a function inside (context -> previous -> previous -> the `self` it
// captured); Pending (4), `this.p.then(() => this)` (the promise's reactions_or_result -> the
// reaction's handler -> its context); Gen (3), a generator holding its owner (the generator's
// context); Poller (3), an async method awaiting the object's own promise (the reaction's
// handler -> the async function's context -> extension -> its generator -> receiver).
// Not cycles: Keyed (5), a WeakMap entry whose value points back at its key (the table's
// slot for the value is an ephemeron: the map keeps neither). Handler (40): an object used
// as a dictionary of handlers, each pointing back at it: one shape, its keys data. Hooks (2):
// eight named hooks of one class, two holding a Hook back: two shapes, by field (a fast
// object, no dictionary). Container (1): a class instance with 35 declared fields, each a
// Service holding it back: 35 shapes, by field (a fast object of a class, however many fields).
'use strict';

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

class Bound {
  constructor() {
    this.onClick = this.handle.bind(this);
  }
  handle() {
    return 1;
  }
}
class Nested {
  constructor() {
    const self = this;
    {
      let x = 1;
      const inner = () => {
        x++;
        return (() => self)();
      };
      this.cb = (function () {
        const y = 2;
        return () => inner() && y;
      })();
    }
  }
}
class Pending {
  constructor() {
    this.p = new Promise(() => {});
    this.p2 = this.p.then(() => this);
  }
}
class Gen {
  constructor() {
    const self = this;
    this.it = (function* () {
      yield self;
    })();
  }
}
class Poller {
  constructor() {
    this.gate = new Promise((r) => {
      this.open = r;
    });
    this.task = this.run();
  }
  async run() {
    await this.gate;
    return this;
  }
}
class Keyed {
  constructor(map) {
    this.map = map;
  }
}
class Value {
  constructor(key) {
    this.key = key;
  }
}
class Handler {
  constructor(registry) {
    this.registry = registry;
  }
}
class Hook {
  constructor(owner) {
    this.owner = owner;
  }
}
class Hooks {
  constructor() {
    for (const n of ['onOpen', 'onClose', 'onError', 'onData', 'onDrain', 'onEnd', 'onTimeout',
                     'onReady']) {
      this[n] = new Map();
    }
    this.onClose.set('h', new Hook(this));
    this.onReady.set('h', new Hook(this));
  }
}
class Service {
  constructor(container) {
    this.container = container;
  }
}
// declared fields keep V8's fast layout, however many (a Function, not eval: a direct eval
// would keep this whole scope in a context every closure here shares)
const fields = Array.from({length: 35}, (_, i) => `service${i} = new Service(this);`);
const Container =
    new Function('Service', `return class Container { ${fields.join(' ')} }`)(Service);
const weak = new WeakMap();
const byId = {};
for (let i = 0; i < 40; i++) byId['req-' + i] = new Handler(byId);

globalThis.kept = {
  bound: Array.from({length: 4}, () => new Bound()),
  nested: Array.from({length: 4}, () => new Nested()),
  pending: Array.from({length: 4}, () => new Pending()),
  gens: Array.from({length: 3}, () => new Gen()),
  pollers: Array.from({length: 3}, () => new Poller()),
  keyed: Array.from({length: 5}, () => {
    const k = new Keyed(weak);
    weak.set(k, new Value(k));
    return k;
  }),
  byId,
  hooks: Array.from({length: 2}, () => new Hooks()),
  container: new Container(),
  selfRefs: Array.from({length: 5}, (_, i) => new SelfRef(i)),
  bags: Array.from({length: 4}, () => new Bag()),
  registries: Array.from({length: 3}, () => new Registry()),
};
// Under Node, the snapshot; in a page (tests/programs/browser/cycles.html), snap.mjs takes it.
if (typeof require === 'function') require('v8').writeHeapSnapshot(process.argv[2]);
