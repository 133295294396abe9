// SPDX-License-Identifier: Apache-2.0
// trees.js: leaks three trees between a baseline and a target snapshot, for js_trees.sh:
// a binary tree (left, right), a fiber tree shaped as React's (child, sibling, return, each
// fiber's memoizedProps), nested plain objects that use each property name once, and a queue of
// jobs (`next`) each keeping the finished jobs it depended on (`dep`): two leaks of one class
// through two self-links that are no tree.
// usage: node --expose-gc trees.js OUTDIR   (writes baseline/target/final.heapsnapshot,
// prints "site NAME COUNT" per tree)
'use strict';
const v8 = require('v8');
const path = require('path');
const outDir = process.argv[2];

class TreeNode {
    constructor(v) { this.value = v; this.left = null; this.right = null; }
}
function binary(depth) {
    const n = new TreeNode(depth);
    if (depth > 0) { n.left = binary(depth - 1); n.right = binary(depth - 1); }
    return n;
}

class FiberNode {
    constructor(tag) {
        this.tag = tag; this.child = null; this.sibling = null; this.return = null;
        this.memoizedProps = { id: tag };
    }
}
function fibers(parent, depth, width) {
    let prev = null;
    for (let i = 0; i < width; i++) {
        const f = new FiberNode(depth * 10 + i);
        f.return = parent;
        if (prev) prev.sibling = f; else parent.child = f;
        prev = f;
        if (depth > 0) fibers(f, depth - 1, width);
    }
}

function snap(name) {
    if (global.gc) { global.gc(); global.gc(); }
    v8.writeHeapSnapshot(path.join(outDir, name));
}

globalThis.app = {};
snap('baseline.heapsnapshot');
const DEPTH = 12, FDEPTH = 5, WIDTH = 4;
globalThis.app.tree = binary(DEPTH);
const root = new FiberNode(0);
fibers(root, FDEPTH, WIDTH);
globalThis.app.fibers = root;
class Job {
    constructor(id) { this.id = id; this.next = null; this.dep = null; }
}
const QUEUED = 100, DEPS = 3;
let last = null;
for (let i = 0; i < QUEUED; i++) {
    const j = new Job(i);
    let d = j;
    for (let k = 0; k < DEPS; k++) { d.dep = new Job(-1); d = d.dep; }
    if (last) last.next = j; else globalThis.app.queue = j;
    last = j;
}
globalThis.app.queue.next.dep.next = new Job(-2); // one finished job that kept a `next`
// tasks: a queue by `next`, each keeping by `dep` a finished task that still links the next
// finished one by `next` (a list of their own): next and dep both ways, but never dep then dep
class Task {
    constructor(id) { this.id = id; this.next = null; this.dep = null; }
}
let lastTask = null;
for (let i = 0; i < QUEUED; i++) {
    const t = new Task(i);
    t.dep = new Task(-1);
    t.dep.next = new Task(-1);
    if (lastTask) lastTask.next = t; else globalThis.app.tasks = t;
    lastTask = t;
}
globalThis.app.config = { db: { pool: { size: 1 }, opts: { ssl: {} } },
                          cache: { users: {}, items: {} } };
snap('target.heapsnapshot');
snap('final.heapsnapshot');
let nf = 1;
for (let d = 0, w = WIDTH; d <= FDEPTH; d++, w *= WIDTH) nf += w;
console.log(`site tree ${2 ** (DEPTH + 1) - 1}`);
console.log(`site fibers ${nf}`);
console.log(`site queued ${QUEUED}`);
console.log(`site deps ${QUEUED * DEPS}`);
