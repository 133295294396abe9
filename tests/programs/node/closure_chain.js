// SPDX-License-Identifier: Apache-2.0
// closure_chain.js: the closure leak every JavaScript engine book shows ("Meteor"'s): each
// replaceThing() builds an object whose method shares a closure context with a function
// that reads the previous object, so each object keeps the last one alive through
// Object -> someMethod -> its Context -> originalThing -> Object. N links per round (30),
// a snapshot after each of three rounds: OUT-1, OUT-2, OUT-3.heapsnapshot.
// Usage: node --expose-gc closure_chain.js OUT [N]
'use strict';
const v8 = require('v8');
const n = +(process.argv[3] || 30);
class Payload {
    constructor(i) { this.cells = new Array(200).fill(i); }
}
let theThing = null;
function replaceThing(i) {
    const originalThing = theThing;
    const unused = function () { if (originalThing) return 'hi'; };
    theThing = { thing: new Payload(i), someMethod: function someMethod() { return 1; } };
    return unused;
}
for (let round = 1; round <= 3; round++) {
    for (let i = 0; i < n; i++)
        replaceThing(i);
    global.gc();
    v8.writeHeapSnapshot(process.argv[2] + '-' + round + '.heapsnapshot');
}
