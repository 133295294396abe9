// SPDX-License-Identifier: Apache-2.0
// closure_sites.js OUT: where the closures that hold a leak are written. 300 Widgets are held
// by anonymous arrow functions registered on a bus (never removed), 40 Panels by a named
// function `onResize` written in one place; the snapshot is OUT/closures.heapsnapshot. The
// lines that create the closures carry a SITE mark, which the test reads to know their
// line and column.
'use strict';
const EventEmitter = require('events');
const v8 = require('v8');
const path = require('path');

const bus = new EventEmitter();
bus.setMaxListeners(0);

class Widget {
  constructor(i) { this.data = new Array(64).fill(i); }
}
class Panel {
  constructor(i) { this.rows = new Array(32).fill(i); }
}

function mountWidget(i) {
  const w = new Widget(i);
  bus.on('tick', () => { w.data[0]++; }); // SITE arrow
}

function mountPanel(i) {
  const p = new Panel(i);
  bus.on('resize', function onResize() { p.rows[0]++; }); // SITE named
}

for (let i = 0; i < 300; i++) mountWidget(i);
for (let i = 0; i < 40; i++) mountPanel(i);
v8.writeHeapSnapshot(path.join(process.argv[2], 'closures.heapsnapshot'));
