// SPDX-License-Identifier: Apache-2.0
// boilerplates.js: three snapshots around work that keeps nothing but 50 Order objects. After
// the baseline, object and array literals run 1,000 times (V8 then keeps a boilerplate of
// each in the literal's AllocationSite), and 8 concurrent requests to a local HTTP server
// leave Node's pooled parsers (a free list up to the peak of concurrency) with their header
// arrays. Neither is a leak. Usage: node --expose-gc boilerplates.js OUTPREFIX
'use strict';
const v8 = require('v8');
const http = require('http');
const out = process.argv[2];

class Order {
  constructor(i) { this.id = i; this.lines = [i, i + 1]; }
}
global.kept = [];

function makeRow(i) { return { id: i, tags: ['a', 'b', i], meta: { n: i } }; }

function requests(server, n) {
  const port = server.address().port;
  return Promise.all(Array.from({ length: n }, (_, i) => new Promise((ok, fail) => {
    http.get({ host: '127.0.0.1', port, path: '/r' + i, agent: false }, (res) => {
      res.resume();
      res.on('end', ok);
    }).on('error', fail);
  })));
}

async function main() {
  const server = http.createServer((req, res) => { res.end('ok'); });
  await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
  await requests(server, 1);
  global.gc();
  v8.writeHeapSnapshot(out + '-1base.heapsnapshot');
  let s = 0;
  for (let i = 0; i < 1000; i++) s += makeRow(i).tags.length;
  await requests(server, 8);
  for (let i = 0; i < 50; i++) global.kept.push(new Order(i));
  global.gc();
  v8.writeHeapSnapshot(out + '-2target.heapsnapshot');
  await requests(server, 8);
  global.gc();
  v8.writeHeapSnapshot(out + '-3final.heapsnapshot');
  server.close();
  console.log('rows', s);
}
main();
