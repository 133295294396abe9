// SPDX-License-Identifier: Apache-2.0
// console_handles.js: what a page or a test harness logs stays held by the DevTools console
// (V8's "(Global handles)" -> "N / DevTools console", here through an in-process inspector
// session with the Runtime domain on, as a browser's DevTools or a CDP-driven test has it).
// Five Sidebars are logged and kept by the closures a registry holds (the program's leak);
// one LoggedOnly is logged and held by nothing else. Writes base, target and final snapshots
// into the folder given (memlab's three: before, after opening the sidebars, the same).
// usage: node console_handles.js DIR
'use strict';
const inspector = require('inspector');
const v8 = require('v8');

const session = new inspector.Session();
session.connect();
session.post('Runtime.enable');

class Sidebar {
    constructor() {
        this.links = new Array(40).fill('link');
    }
}

class LoggedOnly {
    constructor() {
        this.rows = [1, 2, 3];
    }
}

const handlers = [];
globalThis.registry = handlers;

function openSidebar() {
    const el = new Sidebar();
    console.log('sidebar mounted', el); // a debug log left in
    handlers.push(function onSidebarResize() {
        return el.links.length;
    });
}

function logDebug() {
    console.log('debug', new LoggedOnly());
}

const dir = process.argv[2];
v8.writeHeapSnapshot(dir + '/base.heapsnapshot');
for (let i = 0; i < 5; i++) openSidebar();
logDebug();
v8.writeHeapSnapshot(dir + '/target.heapsnapshot');
v8.writeHeapSnapshot(dir + '/final.heapsnapshot');
