// SPDX-License-Identifier: Apache-2.0
// closure_sites.js OUT: where the closures that hold a leak are written. 300 Widgets are held
// by anonymous arrow functions registered on a bus (never removed), 40 Panels by a named
// function `onResize` written in one place, 30 Gadgets and 20 Sprockets by arrow functions
// of eval'd code named by a sourceURL comment; the snapshot is OUT/closures.heapsnapshot.
// The lines that create the closures carry a SITE mark, which the test reads to know their
// line and column; `closure_sites.js OUT --sites` prints the eval'd code and its URLs.
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

// A bundler's development build: each module is eval'd with a `//# sourceURL=` comment,
// which names its script. The long module's source is longer than a snapshot keeps of a
// string; the short one's is whole. EVAL_SITES lists where their closures are written.
class Gadget {
  constructor(i) { this.parts = new Array(16).fill(i); }
}
class Sprocket {
  constructor(i) { this.teeth = new Array(8).fill(i); }
}
const EVAL_SITES = {
  Gadget: ['webpack://app/src/gadget.js', '/* ' + 'padding '.repeat(300) + '*/\n' +
    'const g = new Gadget(i);\nbus.on(\'gadget\', () => { g.parts[0]++; });\n'],
  Sprocket: ['webpack://app/src/sprocket.js',
    'const s = new Sprocket(i);\nbus.on(\'sprocket\', () => { s.teeth[0]++; });\n'],
};
function mountEval(name, i) {
  const [url, src] = EVAL_SITES[name];
  eval(src + '//# sourceURL=' + url);
}

for (let i = 0; i < 300; i++) mountWidget(i);
for (let i = 0; i < 40; i++) mountPanel(i);
for (let i = 0; i < 30; i++) mountEval('Gadget', i);
for (let i = 0; i < 20; i++) mountEval('Sprocket', i);
if (process.argv[3] === '--sites') {
  console.log(JSON.stringify(EVAL_SITES));
  return;
}
v8.writeHeapSnapshot(path.join(process.argv[2], 'closures.heapsnapshot'));
