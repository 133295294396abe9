// SPDX-License-Identifier: Apache-2.0
// v8_opts.js: writes one heap snapshot of a small leaking heap per way Node can take one, so
// leakray can be checked on the options and paths users have (scripts/golden-v8-opts.sh runs
// it under Node 20, 22 and 24). The heap holds OptsLeak objects (N, each with a 1 KiB string,
// a number field and its own copy of the string "opts-dup") kept in a module array, and
// OptsMapValue values in a Map.
//   node --expose-gc v8_opts.js OUTDIR MODE [N]
// MODE:
//   plain      v8.writeHeapSnapshot(file)
//   internals  v8.writeHeapSnapshot(file, {exposeInternals: true})
//   numerics   v8.writeHeapSnapshot(file, {exposeNumericValues: true})
//   both       v8.writeHeapSnapshot(file, {exposeInternals: true, exposeNumericValues: true})
//   stream     v8.getHeapSnapshot() piped to the file
//   worker     v8.writeHeapSnapshot() inside a worker_threads Worker holding the leak
//   wstream    worker.getHeapSnapshot() from the main thread, piped to the file
//   signal     run with --heapsnapshot-signal=SIGUSR2: the process signals itself, Node
//              writes Heap.*.heapsnapshot into OUTDIR (the working directory is moved there)
//   trio-OPT   three snapshots of one process with OPT (plain, internals, numerics, both):
//              OUTDIR/OPT-{baseline,target,final}.heapsnapshot, N more leaks before target,
//              OptsTransient objects in target only
//   mixed      three snapshots of one process taken differently: OUTDIR/mixed-plain, then
//              mixed-numerics (exposeNumericValues) and mixed-internals (exposeInternals)
//   oom        run with --heapsnapshot-near-heap-limit=1 --max-old-space-size=M: grows the
//              leak until V8 writes a snapshot near the heap limit, then dies of OOM
// The file is OUTDIR/MODE.heapsnapshot (signal and oom: Node's own name, Heap.*).
'use strict';
const v8 = require('v8');
const fs = require('fs');
const path = require('path');
const { Worker, isMainThread, workerData } = require('worker_threads');
const { pipeline } = require('stream');

class OptsLeak {
    constructor(i) {
        this.i = i;
        this.ratio = i + 0.5;
        this.text = ('leak' + i).padEnd(1024, '.');
        this.tag = ['opts', 'dup'].join('-'); // a new flat copy of one text per object
    }
}
class OptsMapValue { constructor(i) { this.i = i; this.when = 1e12 + i; } }
const leaks = [];
const table = new Map();
function leak(n) {
    for (let i = 0; i < n; i++) {
        leaks.push(new OptsLeak(leaks.length));
        table.set('k' + table.size, new OptsMapValue(table.size));
    }
}
function gc() { if (global.gc) { global.gc(); global.gc(); } }

if (!isMainThread) {
    leak(workerData.n);
    gc();
    if (workerData.mode === 'worker')
        v8.writeHeapSnapshot(workerData.file);
    else
        require('worker_threads').parentPort.postMessage('ready');
    // the 'wstream' worker waits for the main thread's snapshot, then is terminated
    if (workerData.mode === 'wstream') setInterval(() => {}, 1 << 30);
    return;
}

const out = path.resolve(process.argv[2] || '.');
const mode = process.argv[3] || 'plain';
const N = Number(process.argv[4] || 200);
fs.mkdirSync(out, { recursive: true });
const file = path.join(out, mode + '.heapsnapshot');
const opts = { internals: { exposeInternals: true }, numerics: { exposeNumericValues: true },
               both: { exposeInternals: true, exposeNumericValues: true } };

if (mode === 'worker' || mode === 'wstream') {
    const w = new Worker(__filename, { workerData: { mode, n: N, file } });
    w.on('message', () => {
        w.getHeapSnapshot().then(s => pipeline(s, fs.createWriteStream(file), err => {
            if (err) throw err;
            w.terminate();
        }));
    });
    w.on('error', e => { throw e; });
    return;
}
if (mode.startsWith('trio-')) {
    const o = opts[mode.slice(5)];
    const snap = name => {
        gc();
        v8.writeHeapSnapshot(path.join(out, mode.slice(5) + '-' + name + '.heapsnapshot'), o);
    };
    snap('baseline');
    leak(N);
    globalThis.optsTransient = Array.from({ length: N },
                                          (_, i) => ({ transient: i, at: i + 0.25 }));
    snap('target');
    globalThis.optsTransient = null;
    leak(N);
    snap('final');
    return;
}
leak(N);
if (mode === 'mixed') {
    const ways = [['plain'], ['numerics', opts.numerics], ['internals', opts.internals]];
    for (const [name, o] of ways) {
        gc();
        v8.writeHeapSnapshot(path.join(out, 'mixed-' + name + '.heapsnapshot'), o);
    }
    return;
}
if (mode === 'oom') {
    // V8 writes the snapshot when the heap nears the limit, then the process dies
    process.chdir(out);
    for (;;) leak(1000);
}
gc();
if (mode === 'signal') {
    process.chdir(out);
    process.kill(process.pid, 'SIGUSR2');
    setTimeout(() => {}, 3000); // the snapshot is written on the main thread, after the signal
} else if (mode === 'stream') {
    pipeline(v8.getHeapSnapshot(), fs.createWriteStream(file), err => { if (err) throw err; });
} else {
    v8.writeHeapSnapshot(file, opts[mode]);
}
