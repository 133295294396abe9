// SPDX-License-Identifier: Apache-2.0
// report_jsdupes.js: opens the V8 report pages report_jsdupes.sh wrote in Chromium
// (tests/lib/pw.js) and asserts what a person sees on the Duplicates tab: memlab's pattern
// rows and both top lists with the model's counts and sizes, the planted markup, quotes and
// separators shown as text (separators and control characters made visible), the value cut
// inside a character flagged with its whole size, a row's value and objects after a click;
// no tab for a snapshot without strings; and that no page made a network request, opened a
// dialog, threw or ran injected script.
// usage: node report_jsdupes.js WORK_DIR ARTIFACT_DIR
'use strict';
const path = require('path');
const { check, checkSafe, openPage, run } = require(path.join(process.env.PW_LIB_DIR, 'pw.js'));

const [work, art] = process.argv.slice(2);
const MARKUP = '</script><script>alert(5)</script><img src=x onerror=alert(6)>';

const open = (ctx, name) => openPage(ctx, 'file://' + path.join(work, name),
  { timeout: 20000, viewport: { width: 1280, height: 900 } });

const cells = (page, sel) => page.$$eval(sel, (rows) => rows.map((r) =>
  [...r.querySelectorAll('td')].map((td) => td.textContent)));

// The tab against the page's own data: every pattern and ranked row, in order.
async function dupesTab(name, page) {
  await page.click('#tab-dupes');
  const js = await page.evaluate(() =>
    JSON.parse(document.getElementById('leakray-data').textContent).js_strings);
  check(js && js.strings > 0, name + ': no js_strings in the data');
  const head = await page.$eval('#js-dupes-head', (e) => e.textContent);
  check(/^Duplicate strings \(\d[\d.]* (B|kB|MB|GB) duplicated\)$/.test(head), name + ': head ' + head);
  const pats = await cells(page, '#js-dupes-patterns tbody tr');
  check(pats.length === js.patterns.length && pats[0][0] === 'All strings' &&
    pats[0][1] === js.patterns[0].count.toLocaleString('en-US'),
  name + ': patterns ' + JSON.stringify(pats));
  for (const [id, key] of [['#js-dupes-size', 'top_size'], ['#js-dupes-count', 'top_count']]) {
    const rows = await cells(page, id + ' tbody tr');
    check(rows.length === js[key].length && rows.length > 0, name + ': ' + key + ' has ' +
      rows.length + ' rows, data ' + js[key].length);
    rows.forEach((r, i) => {
      const g = js[key][i];
      check(r[1] === g.count.toLocaleString('en-US'), name + ': ' + key + ' #' + i + ' copies ' +
        r[1] + ', data ' + g.count);
      check(r[4].startsWith(g.ids[0]), name + ': ' + key + ' #' + i + ' objects ' + r[4]);
    });
  }
  return js;
}


async function node(ctx) {
  const { page, log } = await open(ctx, 'node.html');
  const summary = await page.$eval('#sec-summary', (e) => e.textContent);
  check(!summary.includes('Android'), 'node: the Summary names Android');
  const first = await page.$eval('#summary-classes td.name', (e) => e.textContent);
  check(first === 'global', 'node: biggest class ' + first);
  await dupesTab('node', page);
  const values = await page.$$eval('#js-dupes-count td.name', (l) => l.map((e) => e.textContent));
  check(values.includes(MARKUP), 'node: the markup is not listed as text ' + JSON.stringify(values));
  check(values.includes('line\\u2028sep\\u2029para\\u000anewline\\u0009tab\\u0001ctl'),
    'node: separators and control characters not made visible ' + JSON.stringify(values));
  check(values.includes('"double" \'single\' back\\slash `tick` &amp; &lt;'), 'node: quotes');
  check(values.some((v) => v.startsWith('BAD\ufffd')), 'node: bytes that are not UTF-8');
  check(values.some((v) => /^x\u00e9{119}\u2026 \(1,201 bytes\)$/.test(v)),
    'node: the cut value is not shown cut with its size');
  const rows = await page.$$('#js-dupes-count tbody tr');
  const at = values.indexOf(MARKUP);
  if (at >= 0) {
    await rows[at].click();
    const pre = await page.$eval('#js-dupes-value pre', (e) => e.textContent);
    check(pre === MARKUP, 'node: value pane ' + pre);
    const head = await page.$eval('#js-dupes-value > div', (e) => e.textContent);
    const objs = await page.$eval('#js-dupes-value > div:last-child', (e) => e.textContent);
    check(/^60 copies, retained [\d.]+ k?B, duplicated [\d.]+ k?B; the value is 62 bytes$/
      .test(head) && /^Objects: (@\d+ ){15}@\d+ \u2026 and 44 more$/.test(objs),
    'node: pane ' + head + ' | ' + objs);
  }
  const cut = values.findIndex((v) => v.startsWith('x\u00e9'));
  if (cut >= 0) {
    await rows[cut].click();
    const pane = await page.$eval('#js-dupes-value', (e) => e.textContent);
    check(pane.includes('the value is 1,201 bytes (its first 1,023 shown)'), 'node: cut pane ' +
      pane.slice(0, 200));
  }
  await page.screenshot({ path: path.join(art, 'node-duplicates.png'), fullPage: true });
  await checkSafe('node', page, log);
}

async function plain(ctx, file, name, want) {
  const { page, log } = await open(ctx, file);
  const js = await dupesTab(name, page);
  const values = await page.$$eval('#js-dupes-count td.name', (l) => l.map((e) => e.textContent));
  for (const v of want)
    check(values.includes(v), name + ': ' + v + ' not listed: ' + JSON.stringify(values));
  check(js.top_count.length === 10, name + ': ' + js.top_count.length + ' ranked by count');
  await page.screenshot({ path: path.join(art, name + '-duplicates.png'), fullPage: true });
  await checkSafe(name, page, log);
}

run('report_jsdupes.js', async (ctx) => {
  await node(ctx);
  await plain(ctx, 'strings.html', 'strings', ['planted-user-name',
    'planted-left-part-planted-right-part']);
  await plain(ctx, 'browser.html', 'browser', []);
  const c = await open(ctx, 'cliques.html');
  check(!(await c.page.$('#tab-dupes')), 'cliques: a Duplicates tab without strings');
  await checkSafe('cliques', c.page, c.log);
});
