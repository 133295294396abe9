// SPDX-License-Identifier: Apache-2.0
// pw.js: launching Debian's Chromium through playwright-core for the browser tests (see
// playwright.sh). launch() starts a headless, sandbox-less browser with a fresh profile and
// every background network feature off, so a page's own requests are the only ones; watch()
// records every request a page makes, and the dialogs it opens, for the tests to assert on.
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');
const { chromium } = require('playwright-core');

async function launch() {
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'leakray-chromium-'));
  const ctx = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.PW_CHROMIUM || '/usr/bin/chromium',
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync',
      '--disable-dev-shm-usage'],
    viewport: { width: 1280, height: 900 },
  });
  const close = async () => {
    await ctx.close();
    fs.rmSync(profile, { recursive: true, force: true });
  };
  return { ctx, close };
}

// Records the requests (other than the page's own file: URL and data: URIs) and dialogs.
function watch(page) {
  const log = { requests: [], dialogs: [], errors: [] };
  page.on('request', (r) => {
    const u = r.url();
    if (!u.startsWith('data:') && !u.startsWith('file:')) log.requests.push(u);
  });
  page.on('dialog', async (d) => { log.dialogs.push(d.message()); await d.dismiss(); });
  page.on('pageerror', (e) => log.errors.push(String(e)));
  return log;
}

// Opens a report page as a person would and waits until its script marks it ready. alert()
// lands in window.__ran: a script that ran from the dump would call it, the page never does.
async function openPage(ctx, url, { timeout = 10000, viewport } = {}) {
  const page = await ctx.newPage();
  if (viewport) await page.setViewportSize(viewport);
  const log = watch(page);
  await page.addInitScript(() => {
    window.__ran = [];
    window.alert = (m) => window.__ran.push(String(m));
  });
  log.url = url;
  const t0 = Date.now();
  await page.goto(url);
  await page.waitForSelector('body[data-ready="1"]', { state: 'attached', timeout });
  log.ms = Date.now() - t0;
  return { page, log };
}

// A failed check is counted and named; run() turns the count into the exit status.
let failures = 0;
function check(cond, what) {
  if (!cond) {
    failures++;
    console.error('FAIL: ' + what);
  }
}

// What every report page must be, whatever the dump held: no request but its own file, no
// dialog, no page error, its three scripts only, nothing injected ran, no image from outside
// and no inline event handler.
async function checkSafe(name, page, log) {
  const facts = await page.evaluate(() => ({
    scripts: document.scripts.length,
    ran: window.__ran,
    foreignImages: [...document.images].filter((i) => !i.src.startsWith('data:')).length,
    handlers: [...document.querySelectorAll('*')].filter((e) =>
      [...e.attributes].some((a) => a.name.startsWith('on'))).length,
  }));
  check(log.requests.filter((u) => u !== log.url).length === 0,
    name + ': network requests ' + JSON.stringify(log.requests));
  check(log.dialogs.length === 0, name + ': dialogs ' + JSON.stringify(log.dialogs));
  check(log.errors.length === 0, name + ': page errors ' + JSON.stringify(log.errors));
  check(facts.scripts === 3, name + ': ' + facts.scripts + ' script elements, expected 3');
  check(facts.ran.length === 0, name + ': injected script ran ' + JSON.stringify(facts.ran));
  check(facts.foreignImages === 0, name + ': images not from data: URIs');
  check(facts.handlers === 0, name + ': elements with on* attributes');
}

// Runs body(ctx) in one browser and exits 1 when it threw or a check failed.
function run(name, body) {
  (async () => {
    const { ctx, close } = await launch();
    try {
      await body(ctx);
    } finally {
      await close();
    }
    if (failures) {
      console.error(failures + ' check(s) failed');
      process.exit(1);
    }
    console.log(name + ': ok');
  })().catch((e) => {
    console.error(e);
    process.exit(1);
  });
}

module.exports = { launch, watch, openPage, check, checkSafe, run };
