// SPDX-License-Identifier: Apache-2.0
// html_report.js: opens `leakray report` pages in Chromium (tests/lib/pw.js) and asserts what
// a person sees: the leak group's trace after a click (statuses coloured, the suspect
// reference marked), the treemap's selection and zoom after clicks on a cell, the tables,
// DevTools' Summary retainers (V8), inline bitmaps (ART); and that no page made a network
// request, opened a dialog, threw, or grew a script: the Java dump's class and strings are
// markup meant to run script. usage: node html_report.js WORK_DIR ARTIFACT_DIR
'use strict';
const fs = require('fs');
const path = require('path');
const { check, checkSafe, openPage, run } = require(path.join(process.env.PW_LIB_DIR, 'pw.js'));

const [work, art] = process.argv.slice(2);
const PAYLOAD = '<svg onload=alert(1)><img src=x onerror=alert(2)><script>&amp;';
const MARKUP = '</script><script>alert(3)</script><img src=x onerror=alert(4)>';

const open = (ctx, name) => openPage(ctx, 'file://' + path.join(work, name));


async function text(page, sel) {
  return page.$eval(sel, (e) => e.textContent);
}

async function color(page, sel) {
  return page.$eval(sel, (e) => getComputedStyle(e).color);
}

async function treemap(name, page) {
  await page.click('#tab-tree');
  const cells = await page.$$('#treemap .cell');
  check(cells.length > 1, name + ': treemap has ' + cells.length + ' cells');
  const first = await page.$eval('#treemap .cell:not(.other) .n', (e) => e.textContent);
  await page.click('#treemap .cell:not(.other)');
  const sel = await text(page, '#tree-selected');
  check(sel === first, name + ': selected "' + sel + '" is not the clicked cell "' + first + '"');
  const det = await text(page, '#tree-details');
  check(/Retained .* \(\d+\.\d\d% of the reachable heap\)/.test(det), name + ': details ' + det);
  const zoomable = await page.$eval('#treemap .cell:not(.other)', (e) => e.classList.contains('picked'));
  check(zoomable, name + ': the clicked cell is not marked');
  await page.screenshot({ path: path.join(art, name + '-treemap.png') });
  await page.click('#tree-by-class');
  const classCells = await page.$$eval('#treemap .cell .n', (l) => l.map((e) => e.textContent));
  check(classCells.length > 1 && classCells.some((t) => /\u00d7\d/.test(t)),
    name + ': class treemap cells ' + JSON.stringify(classCells.slice(0, 5)));
  await page.screenshot({ path: path.join(art, name + '-treemap-classes.png') });
}

async function java(ctx) {
  const { page, log } = await open(ctx, 'java.html');
  check(await page.$eval('#tab-leaks', (e) => e.classList.contains('active')),
    'java: the Leaks tab is not shown first');
  check((await page.$$('#group-0 .trace')).length === 0, 'java: trace shown before the click');
  await page.click('#group-0 > button');
  const trace = await text(page, '#group-0 .trace');
  check(/^\u252c\u2500+\u2502 GC Root: \S/.test(trace), 'java: trace root: ' + trace);
  check(trace.includes(PAYLOAD + ' instance'), 'java: leaking class not shown as text: ' + trace);
  check(trace.includes('SessionCache class'), 'java: SessionCache missing: ' + trace);
  check(await color(page, '#group-0 .leak-YES') === 'rgb(198, 40, 40)', 'java: YES not red');
  check(await color(page, '#group-0 .leak-NO') === 'rgb(46, 125, 50)', 'java: NO not green');
  const suspects = await page.$$eval('#group-0 .suspect', (l) => l.map((e) => e.textContent));
  check(suspects.length >= 1, 'java: no suspect reference marked');
  const deco = await page.$eval('#group-0 .suspect', (e) => getComputedStyle(e).textDecorationStyle);
  check(deco === 'wavy', 'java: suspect reference not underlined wavy: ' + deco);
  const lines = await page.$$eval('#group-0 .trace .line', (l) => l.map((e) => e.textContent));
  const want = fs.readFileSync(path.join(work, 'expected-trace.txt'), 'utf8');
  check(lines.join('\n') === want, 'java: trace differs from analyze\'s text:\n' +
    lines.join('\n') + '\n--- analyze:\n' + want);
  const title = await text(page, '#group-0 .title');
  check(title === 'SessionCache.ENTRIES', 'java: group title ' + title);
  await page.screenshot({ path: path.join(art, 'java-leaks.png'), fullPage: true });
  await treemap('java', page);
  await page.click('#tab-classes');
  const names = await page.$$eval('#sec-classes td.name', (l) => l.map((e) => e.textContent));
  check(names.includes(PAYLOAD), 'java: classes table lacks the class named like markup');
  await page.click('#sec-classes th:nth-child(2)');
  const counts = await page.$$eval('#sec-classes tbody tr td:nth-child(2)',
    (l) => l.slice(0, 3).map((e) => Number(e.textContent.replace(/,/g, ''))));
  check(counts[0] >= counts[1] && counts[1] >= counts[2], 'java: not sorted by count ' + counts);
  await page.click('#tab-dupes');
  const values = await page.$$eval('#sec-dupes td.name', (l) => l.map((e) => e.textContent));
  check(values.includes(MARKUP), 'java: duplicate markup strings not listed as text');
  await page.click('#tab-threads');
  check((await text(page, '#sec-threads')).includes('main'), 'java: no main thread');
  await checkSafe('java', page, log);
  return log.ms;
}

async function v8(ctx) {
  const { page, log } = await open(ctx, 'v8.html');
  check(await page.$eval('#tab-summary', (e) => e.classList.contains('active')),
    'v8: Summary is not shown first');
  await page.click('#tab-devtools');
  await page.click('#sec-devtools tbody tr:first-child');
  const ret = await text(page, '#retainers');
  check(/^Retainers of \S.* @\d+ \(retains .*, distance \d+\)/.test(ret), 'v8: retainers ' + ret);
  check(ret.includes('\u2190 '), 'v8: no retainer listed: ' + ret);
  // distances of objects only the VM's roots reach read as DevTools shows them, a minus sign
  // (the raw 100000001 sorted first)
  const small = (await open(ctx, 'v8small.html')).page;
  await small.click('#tab-devtools');
  const dists = await small.$$eval('#sec-devtools tbody tr td:nth-child(2)', (tds) =>
    tds.map((td) => td.textContent));
  check(dists.length > 0 && dists.every((d) => /^(\d[\d,]*|\u2212)$/.test(d)),
    'v8: distances ' + dists.filter((d) => !/^(\d[\d,]*|\u2212)$/.test(d)).slice(0, 5));
  check(dists.includes('\u2212'), 'v8: no system distance shown as a minus sign');
  await page.screenshot({ path: path.join(art, 'v8-summary.png') });
  await page.click('#tab-clusters');
  check((await page.$$('#sec-clusters tbody tr')).length > 0, 'v8: no clusters');
  await treemap('v8', page);
  await checkSafe('v8', page, log);
  return log.ms;
}

async function android(ctx) {
  const { page, log } = await open(ctx, 'android.html');
  /* nothing watched: no leak group, the big retainer is analyze's LARGEST RETAINERS */
  check(!(await page.$('#group-0')), 'android: a suspect shown as a leak group');
  await page.click('#tab-suspects');
  const susp = await text(page, '#suspects-text');
  check(susp.includes('1 LARGEST RETAINERS') &&
    susp.includes('Suspect 1: The class Main occupies 1,341,385 bytes (65.2 %)'),
    'android: largest retainers ' + susp);
  const rows = await page.$$eval('#sec-suspects tbody tr', (l) => l.map((e) => e.textContent));
  check(rows.length === 1 && rows[0].includes('65.2%'), 'android: suspects table ' + rows);
  await page.screenshot({ path: path.join(art, 'android-suspects.png') });
  await page.click('#tab-dupes');
  await page.waitForFunction(() => [...document.images].every((i) => i.complete));
  const imgs = await page.$$eval('#sec-dupes img', (l) => l.map((i) => [i.naturalWidth, i.naturalHeight]));
  check(imgs.length === 1 && imgs[0][0] === 100 && imgs[0][1] === 200,
    'android: bitmap not decoded as 100x200: ' + JSON.stringify(imgs));
  await page.screenshot({ path: path.join(art, 'android-bitmaps.png') });
  await treemap('android', page);
  await checkSafe('android', page, log);

  const d = await open(ctx, 'dialer.html');
  await d.page.click('#group-0 > button');
  const t2 = await text(d.page, '#group-0 .trace');
  check(t2.includes('DefaultVoicemailNotifier'), 'dialer: trace ' + t2);
  await d.page.screenshot({ path: path.join(art, 'dialer-leaks.png'), fullPage: true });
  await checkSafe('dialer', d.page, d.log);
  return log.ms;
}

async function markup(ctx) {
  const { page, log } = await open(ctx, 'markup.html');
  for (const t of ['summary', 'tree', 'objects', 'classes', 'devtools', 'clusters']) {
    if (await page.$('#tab-' + t)) await page.click('#tab-' + t);
  }
  const names = await page.$$eval('td.name', (l) => l.map((e) => e.textContent));
  check(names.some((n) => n.startsWith('</script><script>alert(')),
    'markup: names holding a closing script tag are not shown as text');
  await page.screenshot({ path: path.join(art, 'markup-classes.png') });
  await checkSafe('markup', page, log);
}

run('html_report', async (ctx) => {
  const ms = [await java(ctx), await v8(ctx), await android(ctx)];
  await markup(ctx);
  console.log('pages ready in ' + ms.join(', ') + ' ms');
});
