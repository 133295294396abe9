#!/usr/bin/env node
// SPDX-License-Identifier: Apache-2.0
// v8-to-arkts.js: rewrites a V8/Node .heapsnapshot into the layout OpenHarmony's ArkTS
// online serializer writes (heap_snapshot_json_serializer.cpp, 2026): 8 node fields ending in
// detachedness and native_size, the type list ... "slicedstring", "symbol", "bigint",
// "class", "framework", "handle", ten edge types adding native/native_string/xref, a root
// named "SyntheticRoot", to_node scaled to 8 fields and empty locations. No public ArkTS
// snapshot exists, so tests use this to check that the layout loads. Content stays V8's:
// V8 types with no Ark counterpart ("object shape", "wasm object") become "hidden" and
// every node gets native_size 0, except that `--native N` gives N bytes to every node named
// "system / JSArrayBufferData" (Ark's JSNativePointer stand-in).
// usage: node scripts/v8-to-arkts.js IN.heapsnapshot OUT.heapsnapshot [--native N]
'use strict';
const fs = require('fs');
const [inPath, outPath, flag, nativeArg] = process.argv.slice(2);
if (!inPath || !outPath) {
  console.error('usage: v8-to-arkts.js IN OUT [--native N]');
  process.exit(2);
}
const nativeBytes = flag === '--native' ? Number(nativeArg) : 0;
const j = JSON.parse(fs.readFileSync(inPath, 'utf8'));
const m = j.snapshot.meta;
const nf = m.node_fields.length;
const at = name => m.node_fields.indexOf(name);
const [T, N, I, S, E] = ['type', 'name', 'id', 'self_size', 'edge_count'].map(at);
const TR = at('trace_node_id'), D = at('detachedness');
const ark = ['hidden', 'array', 'string', 'object', 'code', 'closure', 'regexp', 'number', 'native',
  'synthetic', 'concatenated string', 'slicedstring', 'symbol', 'bigint', 'class', 'framework',
  'handle'];
const typeMap = m.node_types[0].map(t => {
  const k = ark.indexOf(t === 'sliced string' ? 'slicedstring' : t);
  return k < 0 ? 0 : k;
});
const strings = j.strings.slice();
const jsArrayBufferData = strings.indexOf('system / JSArrayBufferData');
const nodes = [];
for (let i = 0; i < j.nodes.length; i += nf) {
  const t = typeMap[j.nodes[i + T]] ?? 0;
  const native = nativeBytes && j.nodes[i + N] === jsArrayBufferData ? nativeBytes : 0;
  nodes.push(t, j.nodes[i + N], j.nodes[i + I], j.nodes[i + S], j.nodes[i + E],
    TR >= 0 ? j.nodes[i + TR] : 0, 0, native);
}
nodes[1] = strings.length;   // the root is "SyntheticRoot" in Ark snapshots
strings.push('SyntheticRoot');
const ef = m.edge_fields.length, TO = m.edge_fields.indexOf('to_node');
const edges = j.edges.slice();
for (let i = TO; i < edges.length; i += ef) edges[i] = (edges[i] / nf) * 8;
const out = {
  snapshot: {
    meta: {
      node_fields: ['type', 'name', 'id', 'self_size', 'edge_count', 'trace_node_id',
        'detachedness', 'native_size'],
      node_types: [ark, 'string', 'number', 'number', 'number', 'number', 'number'],
      edge_fields: m.edge_fields,
      edge_types: [['context', 'element', 'property', 'internal', 'hidden', 'shortcut', 'weak',
        'native', 'native_string', 'xref'], 'string_or_number', 'node'],
      trace_function_info_fields: ['function_id', 'name', 'script_name', 'script_id', 'line',
        'column'],
      trace_node_fields: ['id', 'function_info_index', 'count', 'size', 'children'],
      sample_fields: ['timestamp_us', 'last_assigned_id'],
      location_fields: ['object_index', 'script_id', 'line', 'column'],
    },
    node_count: nodes.length / 8,
    edge_count: edges.length / ef,
    trace_function_count: 0,
  },
  nodes, edges, trace_function_infos: [], trace_tree: [], samples: [], locations: [], strings,
};
fs.writeFileSync(outPath, JSON.stringify(out));
