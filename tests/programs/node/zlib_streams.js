// zlib_streams.js: 20 zlib Deflate streams kept in an array, then a heap snapshot to
// argv[2]. Node 20+ marks its own embedder objects (zlib's memory, binding data) detached in
// the snapshot's detachedness field, though a Node heap has no DOM.
'use strict';
const v8 = require('v8');
const zlib = require('zlib');
globalThis.streams = [];
for (let i = 0; i < 20; i++) {
  const z = zlib.createDeflate({ level: 9, memLevel: 9 });
  z.write(Buffer.alloc(100000, 1));
  globalThis.streams.push(z);
}
setTimeout(() => {
  v8.writeHeapSnapshot(process.argv[2]);
  process.exit(0);
}, 300);
