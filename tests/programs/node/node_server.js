// SPDX-License-Identifier: Apache-2.0
// node_server.js: a small HTTP service on Node's built-in modules only (http, events,
// async_hooks, timers) with one planted leak of a kind real servers hit, chosen by MODE, and
// three heap snapshots of it as memlab wants them: baseline after warm-up traffic, target
// after N leaking requests, final after more ordinary traffic. Driven by Node's own http
// client, one connection per request. Read by tests/e2e/node_server.sh.
//   listeners  QuoteSubscription: a listener added to a module-level emitter per request
//   timer      PollState: captured by a setInterval per request, never cleared (the handle
//              is dropped: only Node's timer list holds it)
//   map        UserSession: per-request objects in a module-level Map
//   sockets    TrackedSocket: each connection kept in a Set after it closed
//   als        RequestStore: AsyncLocalStorage stores kept by promises waiting for an event
//              that never comes
//   registry   ClientRecord: per-request objects in a plain object keyed by request id
//              (`clientsById[id] = ...`), never deleted
// usage: node --expose-gc node_server.js MODE OUTDIR [N]
'use strict';
const http = require('http');
const path = require('path');
const fs = require('fs');
const v8 = require('v8');
const { EventEmitter, once } = require('events');
const { AsyncLocalStorage } = require('async_hooks');

const [mode, outdir, nArg] = process.argv.slice(2);
const N = Number(nArg || 200);
if (!['listeners', 'timer', 'map', 'sockets', 'als', 'registry'].includes(mode) || !outdir)
  throw new Error('usage: node_server.js listeners|timer|map|sockets|als|registry OUTDIR [N]');
fs.mkdirSync(outdir, { recursive: true });

class QuoteSubscription {
  constructor(user) { this.user = user; this.note = 'sub:' + 'x'.repeat(500) + user; }
  onTick(p) { this.last = p; }
}
const priceFeed = new EventEmitter();
priceFeed.setMaxListeners(0);

class PollState {
  constructor(id) { this.id = id; this.note = 'poll:' + 'y'.repeat(500) + id; }
}

class UserSession {
  constructor(id) { this.id = id; this.note = 'session:' + 'z'.repeat(500) + id; }
}
const sessions = new Map();

class TrackedSocket {
  constructor(socket, id) { this.socket = socket; this.id = id; this.openedAt = Date.now(); }
}
const openSockets = new Set();
let nextSocket = 0;

class RequestStore {
  constructor(id) { this.id = id; this.note = 'store:' + 't'.repeat(500) + id; }
}
const als = new AsyncLocalStorage();
const configBus = new EventEmitter();
configBus.setMaxListeners(0);

class ClientRecord {
  constructor(id) { this.id = id; this.note = 'client:' + 'c'.repeat(500) + id; }
}
const clientsById = {};

function handle(req, res) {
  const url = new URL(req.url, 'http://localhost');
  const id = url.searchParams.get('id');
  if (url.pathname === '/leak' && id !== null) {
    if (mode === 'listeners') {
      const sub = new QuoteSubscription(id);
      priceFeed.on('tick', (p) => sub.onTick(p));
    } else if (mode === 'timer') {
      const st = new PollState(id);
      setInterval(() => { st.polls = (st.polls || 0) + 1; }, 3600 * 1000);
    } else if (mode === 'map') {
      sessions.set('s' + id, new UserSession(id));
    } else if (mode === 'registry') {
      clientsById[id] = new ClientRecord(id);
    } else if (mode === 'als') {
      als.run(new RequestStore(id), () => {
        once(configBus, 'reload').then(() => als.getStore().id);
      });
    }
  }
  res.setHeader('content-type', 'text/plain');
  res.end('ok ' + url.pathname);
}
const server = http.createServer(handle);
server.on('connection', (socket) => {
  if (mode === 'sockets')
    openSockets.add(new TrackedSocket(socket, ++nextSocket));
});

function get(port, p) {
  return new Promise((resolve, reject) => {
    http.get({ port, host: '127.0.0.1', path: p, agent: false }, (res) => {
      res.resume();
      res.on('end', resolve);
    }).on('error', reject);
  });
}
async function drive(port, from, to, leak) {
  for (let i = from; i < to; i++) {
    await get(port, (leak ? '/leak?id=r' : '/home?id=r') + i);
    await get(port, '/static');
  }
}
function snap(name) {
  for (let i = 0; i < 3; i++) global.gc();
  v8.writeHeapSnapshot(path.join(outdir, name + '.heapsnapshot'));
}
const pause = () => new Promise((r) => setTimeout(r, 50));
server.listen(0, '127.0.0.1', async () => {
  const port = server.address().port;
  await drive(port, 0, 20, false); // warm-up: lazy initialisation, pools, compiled code
  await pause();
  snap('baseline');
  await drive(port, 0, N, true);
  await pause();
  snap('target');
  await drive(port, 0, 20, false);
  await pause();
  snap('final');
  process.exit(0);
});
