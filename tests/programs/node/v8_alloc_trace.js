// SPDX-License-Identifier: Apache-2.0
// v8_alloc_trace.js: writes a small Node.js heap snapshot with allocation stacks
// (trace_function_infos, trace_tree and each node's trace_node_id), for leakray's `show`
// tests. Allocation tracking is switched on through the inspector
// (HeapProfiler.startTrackingHeapObjects with trackAllocations), then 200 TracedThing objects
// are made by makeTracedThing, called from allocateTracedThings, and kept in a global array.
// usage: node v8_alloc_trace.js OUT.heapsnapshot
'use strict';
const inspector = require('inspector'), fs = require('fs');
const out = process.argv[2] || 'alloc-trace.heapsnapshot';
const session = new inspector.Session();
session.connect();
const post = (method, params) => new Promise((resolve, reject) =>
  session.post(method, params || {}, (err, res) => (err ? reject(err) : resolve(res))));

class TracedThing {
  constructor(i) { this.index = i; this.label = 'traced-' + i; }
}
function makeTracedThing(i) { return new TracedThing(i); }
function allocateTracedThings(n) {
  const kept = [];
  for (let i = 0; i < n; i++) kept.push(makeTracedThing(i));
  return kept;
}

(async () => {
  await post('HeapProfiler.enable');
  await post('HeapProfiler.startTrackingHeapObjects', {trackAllocations: true});
  globalThis.tracedThings = allocateTracedThings(200);
  const chunks = [];
  let collecting = true; // stopTrackingHeapObjects streams a second snapshot: not kept
  session.on('HeapProfiler.addHeapSnapshotChunk', m => collecting && chunks.push(m.params.chunk));
  await post('HeapProfiler.takeHeapSnapshot', {reportProgress: false});
  collecting = false;
  await post('HeapProfiler.stopTrackingHeapObjects', {reportProgress: false});
  session.disconnect();
  fs.writeFileSync(out, chunks.join(''));
})();
