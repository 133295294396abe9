// SPDX-License-Identifier: Apache-2.0
// snap.mjs: loads page.html in headless Chromium (Debian's /usr/bin/chromium, driven by
// playwright-core over the DevTools protocol) and writes three heap snapshots the way DevTools
// takes them once the page has settled (two animation frames): HeapProfiler.collectGarbage,
// then HeapProfiler.takeHeapSnapshot, the chunks written as they arrive.
//   node snap.mjs PLAYWRIGHT_CORE_DIR OUTDIR
// Writes OUTDIR/baseline.heapsnapshot (page loaded), target.heapsnapshot (after leak()) and
// final.heapsnapshot (after settle()). CHROMIUM overrides the browser path; PAGE names another
// page of this folder (fiber.html) with the same leak() and settle().
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';

const [pwDir, outDir] = process.argv.slice(2);
if (!pwDir || !outDir) {
    console.error('usage: node snap.mjs PLAYWRIGHT_CORE_DIR OUTDIR');
    process.exit(2);
}
const require = createRequire(path.join(path.resolve(pwDir), 'package.json'));
const { chromium } = require('playwright-core');
fs.mkdirSync(outDir, { recursive: true });
const profile = fs.mkdtempSync(path.join(path.resolve(outDir), 'profile-'));
const page_url = pathToFileURL(path.join(path.dirname(new URL(import.meta.url).pathname),
                                         process.env.PAGE || 'page.html')).href;

const ctx = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
           '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
try {
    const page = ctx.pages()[0] || await ctx.newPage();
    await page.goto(page_url);
    const cdp = await ctx.newCDPSession(page);
    await cdp.send('HeapProfiler.enable');
    async function snap(name) {
        // Let the document finish the lifecycle the last step started (style, layout): until
        // it runs, Blink's invalidation sets still hold the nodes a re-render just removed, and
        // a loaded machine may not have run it by the time the snapshot is taken. Then collect
        // twice, as a detached subtree's wrappers and its DOM nodes can need a cycle each.
        await page.evaluate(() => new Promise((done) =>
            requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(done, 50)))));
        await cdp.send('HeapProfiler.collectGarbage');
        await cdp.send('HeapProfiler.collectGarbage');
        const file = path.join(outDir, name + '.heapsnapshot');
        const fd = fs.openSync(file, 'w');
        const onChunk = (e) => fs.writeSync(fd, e.chunk);
        cdp.on('HeapProfiler.addHeapSnapshotChunk', onChunk);
        await cdp.send('HeapProfiler.takeHeapSnapshot', { reportProgress: false });
        cdp.off('HeapProfiler.addHeapSnapshotChunk', onChunk);
        fs.closeSync(fd);
        console.log(`snapshot ${name} ${fs.statSync(file).size}`);
    }
    await snap('baseline');
    console.log('step ' + await page.evaluate('leak()'));
    await snap('target');
    console.log('step ' + await page.evaluate('settle()'));
    await snap('final');
} finally {
    await ctx.close();
    fs.rmSync(profile, { recursive: true, force: true });
}
