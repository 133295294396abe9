// SPDX-License-Identifier: Apache-2.0
// scopes.js: a detached panel kept by a window listener's closure, through the closure's
// scope (Chromium names it "system / Context / scope @N", N drawn per run). PAD closures are
// made first (the page sets PAD), so the leak's scope gets another number from page to page.
var pads = [];
for (let i = 0; i < PAD; i++) {
    const v = { i };
    pads.push(() => v);
}

function leak() {
    const panel = document.createElement('div');
    panel.className = 'scoped-panel';
    document.body.appendChild(panel);
    function onScroll() {
        return panel.className;
    }
    window.addEventListener('scroll', onScroll);
    panel.remove();
    return 'leaked';
}

function settle() {
    return 'settled';
}
