// SPDX-License-Identifier: Apache-2.0
// snap_opts.mjs: loads frames.html in headless Chromium (playwright-core over the DevTools
// protocol, as snap.mjs) and writes the snapshots DevTools' options and the allocation
// timeline produce, all of one page:
//   baseline         page loaded (HeapProfiler.takeHeapSnapshot, no option)
//   tracked-target   after leak(), taken while HeapProfiler.startTrackingHeapObjects
//                    ({trackAllocations: true}) runs: trace_node_id, trace_tree
//   tracked-final    after settle(), the snapshot HeapProfiler.stopTrackingHeapObjects writes
//   final            after settle(), no option
//   numerics         captureNumericValue: true
//   internals        exposeInternals: true
//   noglobal         treatGlobalObjectsAsRoots: false
//   all              the three options together
//   node snap_opts.mjs PLAYWRIGHT_CORE_DIR OUTDIR      (CHROMIUM overrides the browser path)
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';

const [pwDir, outDir] = process.argv.slice(2);
if (!pwDir || !outDir) {
    console.error('usage: node snap_opts.mjs PLAYWRIGHT_CORE_DIR OUTDIR');
    process.exit(2);
}
const require = createRequire(path.join(path.resolve(pwDir), 'package.json'));
const { chromium } = require('playwright-core');
fs.mkdirSync(outDir, { recursive: true });
const profile = fs.mkdtempSync(path.join(path.resolve(outDir), 'profile-'));
const pageUrl = pathToFileURL(path.join(path.dirname(new URL(import.meta.url).pathname),
                                        'frames.html')).href;

const ctx = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
           '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
try {
    const page = ctx.pages()[0] || await ctx.newPage();
    await page.goto(pageUrl);
    const cdp = await ctx.newCDPSession(page);
    await cdp.send('HeapProfiler.enable');
    // the chunks of whatever command streams a snapshot, written as they arrive
    async function snap(name, method, params) {
        const file = path.join(outDir, name + '.heapsnapshot');
        const fd = fs.openSync(file, 'w');
        const onChunk = (e) => fs.writeSync(fd, e.chunk);
        cdp.on('HeapProfiler.addHeapSnapshotChunk', onChunk);
        await cdp.send(method, { reportProgress: false, ...params });
        cdp.off('HeapProfiler.addHeapSnapshotChunk', onChunk);
        fs.closeSync(fd);
        console.log(`snapshot ${name} ${fs.statSync(file).size}`);
    }
    const take = async (name, params = {}) => {
        await cdp.send('HeapProfiler.collectGarbage');
        await snap(name, 'HeapProfiler.takeHeapSnapshot', params);
    };
    await take('baseline');
    await cdp.send('HeapProfiler.startTrackingHeapObjects', { trackAllocations: true });
    console.log('step ' + await page.evaluate('leak()'));
    await take('tracked-target');
    console.log('step ' + await page.evaluate('settle()'));
    await cdp.send('HeapProfiler.collectGarbage');
    await snap('tracked-final', 'HeapProfiler.stopTrackingHeapObjects', {});
    await take('final');
    await take('numerics', { captureNumericValue: true });
    await take('internals', { exposeInternals: true });
    await take('noglobal', { treatGlobalObjectsAsRoots: false });
    await take('all', { captureNumericValue: true, exposeInternals: true,
                        treatGlobalObjectsAsRoots: false });
} finally {
    await ctx.close();
    fs.rmSync(profile, { recursive: true, force: true });
}
