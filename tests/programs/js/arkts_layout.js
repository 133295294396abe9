// SPDX-License-Identifier: Apache-2.0
// arkts_layout.js: writes tiny hand-built heap snapshots in the ArkTS layout (8 node fields
// with native_size, the online serializer's type lists, a SyntheticRoot with -subroot-
// shortcuts, id-0 handle groups, names carrying path#name(line:N)) that exercise each
// clustering rule and special case: business classes (name + chain), closures, plain objects
// by property set, Map entries through a TaggedArray, promises by their reaction's handler,
// ArkUI proxies by target, framework objects, and the unclustered SourceTextModule and
// HiddenClass. Three snapshots (baseline, target, final) share ids so `leakray leaks` works.
//   node arkts_layout.js OUTDIR
'use strict';
const fs = require('fs');
const path = require('path');

const NODE_TYPES = ['hidden', 'array', 'string', 'object', 'code', 'closure', 'regexp', 'number',
    'native', 'synthetic', 'concatenated string', 'slicedstring', 'symbol', 'bigint', 'class',
    'framework', 'handle'];
const EDGE_TYPES = ['context', 'element', 'property', 'internal', 'hidden', 'shortcut', 'weak',
    'native', 'native_string', 'xref'];
const NF = 8;
const REC = 'entry/src/main/ets/pages/Index#Record(line:12)[entry]';
const CLICK = 'entry/src/main/ets/pages/Index#onClick(line:30)[entry]';
const DONE = 'entry/src/main/ets/pages/Index#onDone(line:40)[entry]';
const VM = 'entry/src/main/ets/model/ViewModel#ViewModel(line:5)[entry]';

function snapshot(phase) {   // phase 0 baseline, 1 target, 2 final
    const nodes = [], edges = [], strings = ['<dummy>', '', 'GC roots'];
    const sidx = new Map(strings.map((s, i) => [s, i]));
    const str = s => { if (!sidx.has(s)) { sidx.set(s, strings.length); strings.push(s); } return sidx.get(s); };
    const list = [];
    let nextId = 3;
    const node = (type, name, size, id) => {
        const n = {type: NODE_TYPES.indexOf(type), name, size, id: id === undefined ? nextId : id, out: []};
        if (id === undefined) nextId += 2;
        if (n.type < 0) throw new Error(type);
        list.push(n);
        return n;
    };
    const edge = (from, type, name, to) => from.out.push({type: EDGE_TYPES.indexOf(type), name, to});
    const prop = (a, name, b) => edge(a, 'property', name, b);

    const root = node('synthetic', 'SyntheticRoot', 0, 1);
    const local = node('handle', 'LocalHandleRoot[1]', 1, 0);
    const vmroot = node('handle', 'VMRoot[2]', 1, 0);
    const global = node('native', 'GlobalObject', 64);
    edge(root, 'shortcut', '-subroot-', local);
    edge(root, 'shortcut', '-subroot-', vmroot);
    edge(root, 'shortcut', '-subroot-', global);
    const env = node('native', 'GlobalEnv', 200);
    edge(vmroot, 'element', 1, env);
    const mod1 = node('native', 'SourceTextModule', 120), mod2 = node('native', 'SourceTextModule', 120);
    edge(vmroot, 'element', 2, mod1);
    edge(vmroot, 'element', 3, mod2);
    const hc = node('native', 'HiddenClass(NonMovable)', 80);
    edge(local, 'element', 1, hc);
    const records = node('object', 'JSArray', 32);
    const listeners = node('object', 'JSArray', 32);
    const cache = node('native', 'Map', 40);
    const table = node('array', 'ArkInternalArray[40]', 176);
    const objs = node('object', 'JSArray', 32);
    const proms = node('object', 'JSArray', 32);
    const views = node('object', 'JSArray', 32);
    const handler = node('object', 'JSObject', 24);
    const fw1 = node('framework', '_GLOBAL entry/src/main/ets/app#AppStorage(line:3)', 48);
    const fw2 = node('framework', '_GLOBAL entry/src/main/ets/app#AppStorage(line:3)', 48);
    const leaf = node('string', 'hello', 16);
    prop(global, 'records', records);
    prop(global, 'listeners', listeners);
    prop(global, 'cache', cache);
    prop(global, 'objs', objs);
    prop(global, 'proms', proms);
    prop(global, 'views', views);
    prop(global, 'handler', handler);
    prop(global, 'storage', fw1);
    prop(global, 'storage2', fw2);
    edge(cache, 'internal', 'linkedMap', table);
    prop(global, 'hcRef', hc);
    if (phase >= 1) {
        for (let i = 0; i < 5; i++) {
            const r = node('object', REC, 40), p = node('object', 'JSObject', 24);
            edge(records, 'element', i, r);
            prop(r, 'payload', p);
            prop(p, 'a', leaf);
        }
        for (let i = 0; i < 4; i++) {
            const c = node('closure', CLICK, 56), e = node('native', 'LexicalEnv[3]', 32);
            edge(listeners, 'element', i, c);
            edge(c, 'internal', 'LexicalEnv', e);
        }
        for (let i = 0; i < 6; i++) {
            const k = node('string', 'key' + i, 16), o = node('object', 'JSObject', 32);
            edge(table, 'element', 2 * i, k);
            edge(table, 'element', 2 * i + 1, o);
            prop(o, 'key', k);
            prop(o, 'value', leaf);
        }
        for (let i = 0; i < 5; i++) {
            const o = node('object', 'JSObject', 24);
            edge(objs, 'element', i, o);
            prop(o, 'x', leaf);
            if (i >= 3) prop(o, 'y', leaf);
        }
        for (let i = 0; i < 3; i++) {
            const p = node('native', 'Promise', 40), q = node('array', 'ArkInternalArray[1]', 24);
            const re = node('native', 'PromiseReaction', 32), h = node('closure', DONE, 56);
            const cap = node('native', 'PromiseCapability', 24);
            edge(proms, 'element', i, p);
            edge(p, 'internal', 'PromiseFulfillReactions', q);
            edge(q, 'element', 0, re);
            edge(re, 'internal', 'PromiseOrCapability', cap);
            edge(re, 'internal', 'Handler', h);
        }
        for (let i = 0; i < 2; i++) {
            const px = node('native', 'Proxy-ViewModel', 32), t = node('object', VM, 48);
            edge(views, 'element', i, px);
            edge(px, 'internal', 'target', t);
            edge(px, 'internal', 'handler', handler);
        }
        if (phase === 1) {   // transient: alive in target only
            for (let i = 0; i < 3; i++) edge(objs, 'element', 10 + i, node('object', 'entry/src/main/ets/pages/Index#Temp(line:50)[entry]', 16));
        } else {
            nextId += 6;     // keep ids aligned with the target
        }
    }
    const index = new Map(list.map((n, i) => [n, i]));
    for (const n of list) {
        nodes.push(n.type, str(n.name), n.id, n.size, n.out.length, 0, 0, n.name === 'Map' ? 4096 : 0);
        for (const e of n.out)
            edges.push(e.type, e.type === 1 || e.type === 4 ? e.name : str(e.name), index.get(e.to) * NF);
    }
    return {snapshot: {meta: {
        node_fields: ['type', 'name', 'id', 'self_size', 'edge_count', 'trace_node_id', 'detachedness', 'native_size'],
        node_types: [NODE_TYPES, 'string', 'number', 'number', 'number', 'number', 'number'],
        edge_fields: ['type', 'name_or_index', 'to_node'],
        edge_types: [EDGE_TYPES, 'string_or_number', 'node'],
        trace_function_info_fields: ['function_id', 'name', 'script_name', 'script_id', 'line', 'column'],
        trace_node_fields: ['id', 'function_info_index', 'count', 'size', 'children'],
        sample_fields: ['timestamp_us', 'last_assigned_id'],
        location_fields: ['object_index', 'script_id', 'line', 'column']},
        node_count: list.length, edge_count: edges.length / 3, trace_function_count: 0},
        nodes, edges, trace_function_infos: [], trace_tree: [], samples: [], locations: [], strings};
}

const out = process.argv[2] || '.';
fs.mkdirSync(out, {recursive: true});
['baseline', 'target', 'final'].forEach((name, phase) =>
    fs.writeFileSync(path.join(out, `ark-${name}.heapsnapshot`), JSON.stringify(snapshot(phase))));
