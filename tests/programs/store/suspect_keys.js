// SPDX-License-Identifier: Apache-2.0
// suspect_keys.js: the same two leaks laid out differently from run to run, then a heap
// snapshot: a big session in a global Map inserted at position POS (its slot in the Map's
// table moves), and one in a plain object used as a map under a key named after a session
// id drawn from SEED.
// usage: node suspect_keys.js OUT POS SEED
const [out, pos, seed] = process.argv.slice(2);
class Big { constructor() { this.rows = []; for (let i = 0; i < 100000; i++) this.rows.push({ i }); } }
class Bulk { constructor() { this.rows = []; for (let i = 0; i < 100000; i++) this.rows.push({ i }); } }
globalThis.registry = new Map();
for (let i = 0; i < 50; i++) globalThis.registry.set('s' + i, i === +pos ? new Big() : { i });
globalThis.sessions = {};
for (let i = 0; i < 50; i++) globalThis.sessions['sess-' + ((i + 1) * 7919 * +seed) % 1000003] = { i };
globalThis.sessions['sess-' + (+seed * 104729) % 1000003] = new Bulk();
require('v8').writeHeapSnapshot(out);
