// SPDX-License-Identifier: Apache-2.0
// store_dashboard.js: opens `leakray report --db` pages in Chromium (tests/lib/pw.js) and
// asserts what a person sees: one row and one sparkline per leak, the planted markup as
// text; a click on the grown leak shows the trace `store show` prints (statuses coloured,
// suspect references marked) and its three reports; the Versions tab the comparison of 1.0
// and 1.1; the Trend tab one row per day. And that no page made a network request, opened a
// dialog, threw, or ran the store's markup. usage: node store_dashboard.js WORK ART SIGNATURE
'use strict';
const fs = require('fs');
const path = require('path');
const { check, openPage, run } = require(path.join(process.env.PW_LIB_DIR, 'pw.js'));

const [work, art, sig] = process.argv.slice(2);
const expect = JSON.parse(fs.readFileSync(path.join(work, 'expect.json'), 'utf8'));
const wantTrace = fs.readFileSync(path.join(work, 'expected-trace.txt'), 'utf8');

async function dashboard(ctx, name) {
  const url = 'file://' + path.join(work, name + '.html');
  const { page, log } = await openPage(ctx, url);
  const model = JSON.parse(fs.readFileSync(path.join(work, name + '.json'), 'utf8'));

  // The leak list: every leak, its counts, a sparkline each.
  const rows = await page.$$eval('#leaks-table tbody tr', (l) => l.map((r) =>
    [...r.children].map((c) => c.textContent)));
  check(rows.length === expect.v10.length + 1, name + ': ' + rows.length + ' leak rows');
  const sparks = await page.$$('#leaks-table svg.spark polyline');
  check(sparks.length === rows.length, name + ': ' + sparks.length + ' sparklines');
  const marked = rows.find((r) => r[2] === expect.mark + '.field');
  check(marked && marked[3] === '1', name + ': the planted description is not shown as text');
  const grownRow = rows.find((r) => sig.startsWith(r[0]));
  check(grownRow && grownRow[3] === '3' && grownRow[6] === '2',
    name + ': grown leak row ' + JSON.stringify(grownRow));
  await page.screenshot({ path: path.join(art, name + '-leaks.png'), fullPage: true });

  // Drill-down: the newest trace in LeakCanary's layout and the reports it was seen in.
  await page.click('#leaks-table tbody tr[data-signature="' + sig + '"]');
  const title = await page.$eval('#leak-title', (e) => e.textContent);
  const leak = model.leaks.find((l) => l.signature === sig);
  check(title === leak.short_description, name + ': detail title ' + title);
  const lines = await page.$$eval('#leak-trace .line', (l) => l.map((e) => e.textContent));
  check(lines.join('\n') === wantTrace, name + ': trace differs from store show:\n' +
    lines.join('\n') + '\n--- store show:\n' + wantTrace);
  check(await page.$eval('#leak-trace .leak-YES', (e) => getComputedStyle(e).color) ===
    'rgb(198, 40, 40)', name + ': YES not red');
  check((await page.$$('#leak-trace .suspect')).length >= 1, name + ': no suspect marked');
  const hist = await page.$$eval('#leak-history tbody tr', (l) => l.map((r) =>
    [...r.children].map((c) => c.textContent)));
  check(hist.length === 3 && hist[0][1] === '2026-11-04 00:00' && hist[0][3] === '1.1' &&
    hist[2][1] === '2026-11-01 00:00', name + ': history ' + JSON.stringify(hist));
  check((await page.$$('#leak-detail svg.chart rect')).length >= 3, name + ': no day chart');
  await page.screenshot({ path: path.join(art, name + '-detail.png'), fullPage: true });

  // The planted leak's trace: its class stays text.
  await page.click('#leaks-table tbody tr[data-signature="' + expect.new[0] + '"]');
  const planted = await page.$eval('#leak-trace', (e) => e.textContent);
  check(planted.includes('\u2570\u2192 ' + expect.mark + ' instance'),
    name + ': planted class not shown as text: ' + planted);

  // Versions: 1.0 -> 1.1.
  await page.click('#tab-versions');
  const sum = await page.$eval('#diff-summary', (e) => e.textContent);
  check(sum === 'Version 1.0 \u2192 1.1: 1 new, 1 fixed, 1 grown, 0 shrunk, ' +
    (expect.v10.length - 2) + ' unchanged', name + ': comparison ' + sum);
  const changes = await page.$$eval('#diff-table tbody tr', (l) => l.map((r) =>
    [r.getAttribute('data-signature'), r.children[0].textContent]));
  for (const [k, v] of [['new', expect.new[0]], ['fixed', expect.fixed[0]], ['grown', expect.grown[0]]])
    check(changes.some((c) => c[0] === v && c[1] === k), name + ': ' + k + ' not listed');
  const vt = await page.$$eval('#version-trend tbody tr', (l) => l.map((r) => r.children[0].textContent));
  check(JSON.stringify(vt) === '["1.0","1.1"]', name + ': per-version rows ' + vt);
  await page.screenshot({ path: path.join(art, name + '-versions.png'), fullPage: true });
  // A click in the comparison opens that leak's detail.
  await page.click('#diff-table tbody tr[data-signature="' + sig + '"]');
  check(await page.$eval('#tab-leaks', (e) => e.classList.contains('active')) &&
    (await page.$eval('#leak-title', (e) => e.textContent)) === leak.short_description,
    name + ': comparison row does not open the leak');

  await page.click('#tab-trend');
  const days = await page.$$eval('#day-trend tbody tr', (l) => l.map((r) => r.children[0].textContent));
  check(JSON.stringify(days) === '["2026-11-01","2026-11-02","2026-11-04"]', name + ': days ' + days);

  const facts = await page.evaluate(() => ({
    scripts: document.scripts.length,
    ran: window.__ran,
    images: document.images.length,
    handlers: [...document.querySelectorAll('*')].filter((e) =>
      [...e.attributes].some((a) => a.name.startsWith('on'))).length,
  }));
  check(log.requests.filter((u) => u !== url).length === 0,
    name + ': network requests ' + JSON.stringify(log.requests));
  check(log.dialogs.length === 0, name + ': dialogs ' + JSON.stringify(log.dialogs));
  check(log.errors.length === 0, name + ': page errors ' + JSON.stringify(log.errors));
  check(facts.scripts === 3, name + ': ' + facts.scripts + ' script elements, expected 3');
  check(facts.ran.length === 0, name + ': injected script ran ' + JSON.stringify(facts.ran));
  check(facts.images === 0, name + ': ' + facts.images + ' images');
  check(facts.handlers === 0, name + ': elements with on* attributes');
  await page.close();
}

run('store_dashboard', async (ctx) => {
  await dashboard(ctx, 'sqlite');
  await dashboard(ctx, 'postgres');
});
