// SPDX-License-Identifier: Apache-2.0
// group_typical.js OUT: a server whose requests each leave a closure context behind, held by
// two things at once (a listener on an event bus and a timer), so no one object dominates
// them and they make a group of instances of system / Context; one unrelated context, held
// by a module of its own, is bigger than any of them alone.
'use strict';
const v8 = require('v8');
const EventEmitter = require('events');

global.appBus = new EventEmitter();
appBus.setMaxListeners(0);
const timers = [];
function handle(i) {
    const ctx = {id: i, body: 'r'.repeat(1500) + i};
    appBus.on('config', function onConfigChange() { return ctx.id; });
    timers.push(setInterval(() => ctx.body.length, 1e9));
}
for (let i = 0; i < 1500; i++)
    handle(i);
// the outlier: one context of 400 kB, held twice as well
const outlier = (() => {
    const table = 'o'.repeat(400000);
    const get = () => table;
    return [get, () => table.length];
})();
global.moduleCache = {a: outlier[0]};
global.console2 = {b: outlier[1]};
global.gc();
v8.writeHeapSnapshot(process.argv[2]);
for (const t of timers)
    clearInterval(t);
