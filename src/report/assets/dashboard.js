/* dashboard.js: the leak store dashboard's renderer (inlined into the page by
 * src/report/dashboard.c). Reads the dashboard model (docs/json.md "dashboard") from the inert
 * JSON element #leakray-store and builds the page with DOM calls and textContent only: every
 * string in the store came from a dump, so nothing is ever parsed as HTML and a class named
 * like a closing script tag stays text. Charts are SVG built element by element. No network. */
'use strict';
(function () {
  const D = JSON.parse(document.getElementById('leakray-store').textContent);
  const S = D.summary || {};
  const SVG = 'http://www.w3.org/2000/svg';
  const DAY_MS = 86400000;
  const MAX_BINS = 60; /* sparkline points: longer ranges are binned */

  const {el, bytes, num, traceView} = LRKIT;
  const table = (id, cols, rows, onRow) => LRKIT.table(cols, rows, onRow, id);
  function svg(tag, attrs) {
    const e = document.createElementNS(SVG, tag);
    for (const k of Object.keys(attrs || {})) e.setAttribute(k, String(attrs[k]));
    return e;
  }
  function when(iso) { return iso ? iso.replace('T', ' ').slice(0, 16) : ''; }
  function dayLabel(d) { return new Date(d * DAY_MS).toISOString().slice(0, 10); }

  /* ---- sparklines: occurrences per day (or per bin of days) over the store's range ---- */
  const FIRST = S.first_day, LAST = S.last_day;
  const SPAN = FIRST === undefined ? 0 : LAST - FIRST + 1;
  const BIN = Math.max(1, Math.ceil(SPAN / MAX_BINS));
  const NBINS = Math.max(1, Math.ceil(SPAN / BIN));
  function binned(days, field) {
    const v = new Array(NBINS).fill(0);
    for (const d of days || []) {
      const b = Math.floor((d[0] - FIRST) / BIN);
      if (b >= 0 && b < NBINS) v[b] += d[field];
    }
    return v;
  }
  function sparkline(values, w, h, title) {
    const s = svg('svg', {width: w, height: h, viewBox: '0 0 ' + w + ' ' + h, class: 'spark'});
    const max = Math.max(1, ...values);
    const step = values.length > 1 ? (w - 4) / (values.length - 1) : 0;
    const pts = values.map((v, i) => [2 + i * step, h - 2 - (h - 4) * v / max]);
    if (pts.length === 1) pts.push([w - 2, pts[0][1]]);
    const line = pts.map((p) => p[0].toFixed(1) + ',' + p[1].toFixed(1)).join(' ');
    s.appendChild(svg('polygon', {class: 'area', points: '2,' + (h - 2) + ' ' + line + ' ' +
      pts[pts.length - 1][0].toFixed(1) + ',' + (h - 2)}));
    s.appendChild(svg('polyline', {points: line}));
    const last = pts[pts.length - 1];
    s.appendChild(svg('circle', {class: 'last', cx: last[0], cy: last[1], r: 2}));
    const t = svg('title');
    t.textContent = title;
    s.appendChild(t);
    return s;
  }
  /* Bars with the first and last label under them; each bar's title says its value. */
  function barChart(values, labels, w, h, cls) {
    const s = svg('svg', {width: w, height: h + 16, class: 'chart'});
    const max = Math.max(1, ...values);
    const bw = (w - 8) / Math.max(1, values.length);
    values.forEach((v, i) => {
      const bh = (h - 8) * v / max;
      const r = svg('rect', {class: 'col' + (cls ? ' ' + cls : ''), x: 4 + i * bw,
        y: h - bh, width: Math.max(1, bw - 1), height: bh});
      const t = svg('title');
      t.textContent = labels[i] + ': ' + num(v);
      r.appendChild(t);
      s.appendChild(r);
    });
    const a = svg('text', {x: 4, y: h + 12});
    a.textContent = labels[0] || '';
    const b = svg('text', {x: w - 4, y: h + 12, 'text-anchor': 'end'});
    b.textContent = labels[labels.length - 1] || '';
    s.appendChild(a);
    s.appendChild(b);
    return s;
  }
  const BIN_LABELS = Array.from({length: NBINS}, (_, i) => SPAN ? dayLabel(FIRST + i * BIN) : '');

  /* ---- page frame ---- */
  const app = document.getElementById('app');
  const nav = el('nav', {role: 'tablist'});
  const main = el('main');
  const filt = D.filter || {};
  const fparts = ['app', 'version', 'kind', 'since'].filter((k) => filt[k])
    .map((k) => k + ' ' + filt[k]);
  app.appendChild(el('header', null, [
    el('h1', {text: 'leakray leak store'}),
    el('div', {cls: 'file', id: 'store-url', text: D.store + (fparts.length ? ' (' +
      fparts.join(', ') + ')' : '') + (D.generated ? ' \u00b7 ' + when(D.generated) + ' UTC' : '')}),
    el('div', {id: 'summary', text: num(S.reports) + ' reports (' + num(S.failed) +
      ' failed), ' + num(S.leaks) + ' distinct leaks, ' + num(S.versions) + ' versions' +
      (SPAN ? ', ' + dayLabel(FIRST) + ' to ' + dayLabel(LAST) : '')})]));
  app.appendChild(nav);
  app.appendChild(main);
  const {addTab, show} = LRKIT.tabs(nav, main);
  const bySig = new Map((D.leaks || []).map((l) => [l.signature, l]));

  /* ---- Leaks: one row per signature, a click shows the detail below ---- */
  let detailBox = null;
  function showLeak(l) {
    show('leaks');
    detailBox.textContent = '';
    const kv = el('dl', {cls: 'kv'});
    const add = (k, v) => { kv.appendChild(el('dt', {text: k})); kv.appendChild(el('dd', {text: v})); };
    detailBox.appendChild(el('h2', {id: 'leak-title', text: l.short_description}));
    add('Signature', l.signature);
    add('Kind', l.kind + ' leak');
    add('Seen', num(l.occurrences) + ' reports (' + num(l.dumps) + ' distinct dumps), ' +
      num(l.instances) + ' leaking objects');
    add('First / last seen', when(l.first_seen) + ' \u2013 ' + when(l.last_seen));
    add('Apps / versions', num(l.apps) + ' / ' + num(l.versions));
    add('Retained per report', bytes(l.retained_median) + ' median, ' + bytes(l.retained_max) + ' max');
    if (l.pattern && l.kind === 'native') add('Blocks', l.pattern); // direct or indirect
    else if (l.pattern) add('Library leak pattern', l.pattern + (l.description ? ' \u2014 ' + l.description : ''));
    detailBox.appendChild(kv);
    if (SPAN) {
      detailBox.appendChild(el('h3', {text: 'Occurrences per ' + (BIN > 1 ? BIN + ' days' : 'day')}));
      detailBox.appendChild(barChart(binned(l.days, 1), BIN_LABELS, 720, 70));
      detailBox.appendChild(el('h3', {text: 'Bytes retained per ' + (BIN > 1 ? BIN + ' days' : 'day')}));
      detailBox.appendChild(barChart(binned(l.days, 2), BIN_LABELS, 720, 70));
    }
    if (l.history === undefined) {
      detailBox.appendChild(el('p', {cls: 'note', text: 'Trace and history are in the page for ' +
        'the first leaks only: leakray store show ' + l.signature.slice(0, 12)}));
      return;
    }
    detailBox.appendChild(el('h3', {text: 'Newest trace'}));
    if (l.trace) detailBox.appendChild(traceView(l.trace, 'leak-trace'));
    else detailBox.appendChild(el('p', {cls: 'note', text: 'This leak has no trace (native ' +
      'groups and suspects are sizes only).'}));
    detailBox.appendChild(el('h3', {text: 'Latest reports (' + num(l.history.length) + ' of ' +
      num(l.history_total) + ')'}));
    detailBox.appendChild(table('leak-history', [
      {key: 'report', label: 'Report', num: true, fmt: (v) => '#' + v},
      {key: 'at', label: 'Taken', fmt: when},
      {key: 'app', label: 'App'}, {key: 'version', label: 'Version'},
      {key: 'device', label: 'Device'},
      {key: 'instances', label: 'Instances', num: true, fmt: num},
      {key: 'retained_bytes', label: 'Retained', num: true, fmt: bytes},
      {key: 'source', label: 'Source', name: true}], l.history));
    detailBox.scrollIntoView({block: 'nearest'});
  }
  addTab('leaks', 'Leaks', (sec) => {
    if (!(D.leaks || []).length) {
      sec.appendChild(el('p', {text: 'The store holds no leak' +
        (fparts.length ? ' matching the filter.' : '.')}));
      return;
    }
    if (D.leaks_total > D.leaks.length)
      sec.appendChild(el('p', {cls: 'note', text: 'The first ' + num(D.leaks.length) + ' of ' +
        num(D.leaks_total) + ' leaks (most occurrences first).'}));
    sec.appendChild(table('leaks-table', [
      {key: 'signature', label: 'Signature', name: true, fmt: (v) => v.slice(0, 12)},
      {key: 'kind', label: 'Kind'},
      {key: 'short_description', label: 'Leak', name: true},
      {key: 'occurrences', label: 'Occurrences', num: true, fmt: num},
      {key: 'dumps', label: 'Dumps', num: true, fmt: num},
      {key: 'apps', label: 'Apps', num: true, fmt: num},
      {key: 'versions', label: 'Versions', num: true, fmt: num},
      {key: 'first_seen', label: 'First seen', fmt: when},
      {key: 'last_seen', label: 'Last seen', fmt: when},
      {key: 'retained_median', label: 'Retained (median)', num: true, fmt: bytes},
      {key: 'retained_max', label: 'Max', num: true, fmt: bytes},
      {key: 'days', label: 'Trend', cell: (l) => sparkline(binned(l.days, 1), 120, 22,
        num(l.occurrences) + ' occurrences, ' + (SPAN ? dayLabel(FIRST) + ' to ' + dayLabel(LAST) : ''))}],
    D.leaks, (l) => showLeak(l)));
    detailBox = el('div', {id: 'leak-detail'}, [el('p', {cls: 'note',
      text: 'Click a leak to see its newest trace and the reports it appeared in.'})]);
    sec.appendChild(detailBox);
  });

  /* ---- Versions: the comparison of two versions, then new/recurring/fixed per version ---- */
  const trendCols = (first) => [first,
    {key: 'reports', label: 'Reports', num: true, fmt: num},
    {key: 'failed', label: 'Failed', num: true, fmt: num},
    {key: 'leaks', label: 'Leaks', num: true, fmt: num},
    {key: 'new', label: 'New', num: true, fmt: num},
    {key: 'recurring', label: 'Recurring', num: true, fmt: num},
    {key: 'fixed', label: 'Fixed', num: true, fmt: num},
    {key: 'retained_bytes', label: 'Retained', num: true, fmt: bytes}];
  addTab('versions', 'Versions', (sec) => {
    const c = D.comparison;
    if (!c) {
      sec.appendChild(el('p', {id: 'diff-summary', text: 'A comparison needs reports of two ' +
        'versions (ingest with --version V).'}));
    } else {
      const k = c.counts;
      sec.appendChild(el('h3', {id: 'diff-summary', text: 'Version ' + c.from + ' \u2192 ' + c.to +
        ': ' + k.new + ' new, ' + k.fixed + ' fixed, ' + k.grown + ' grown, ' + k.shrunk +
        ' shrunk, ' + k.same + ' unchanged'}));
      sec.appendChild(table('diff-table', [
        {key: 'change', label: 'Change', cell: (r) => el('span', {cls: 'chg chg-' + r.change, text: r.change})},
        {key: 'signature', label: 'Signature', name: true, fmt: (v) => v.slice(0, 12)},
        {key: 'kind', label: 'Kind'},
        {key: 'short_description', label: 'Leak', name: true},
        {key: 'from_retained_median', label: c.from + ' (median)', num: true,
          fmt: (v, r) => r.from_reports ? bytes(v) : '\u2013'},
        {key: 'to_retained_median', label: c.to + ' (median)', num: true,
          fmt: (v, r) => r.to_reports ? bytes(v) : '\u2013'},
        {key: 'from_reports', label: c.from + ' reports', num: true, fmt: num},
        {key: 'to_reports', label: c.to + ' reports', num: true, fmt: num}],
      c.leaks, (r) => { if (bySig.has(r.signature)) showLeak(bySig.get(r.signature)); }));
    }
    const tv = D.trend_by_version || [];
    sec.appendChild(el('h3', {text: 'Per version (sorted as versions)'}));
    sec.appendChild(table('version-trend', trendCols({key: 'label', label: 'Version'}), tv));
  });

  /* ---- Trend: per day ---- */
  addTab('trend', 'Trend', (sec) => {
    const td = D.trend_by_day || [];
    if (td.length) {
      sec.appendChild(el('h3', {text: 'Distinct leaks per day'}));
      sec.appendChild(barChart(td.map((b) => b.leaks), td.map((b) => b.label), 900, 90));
      sec.appendChild(el('h3', {text: 'New leaks per day'}));
      sec.appendChild(barChart(td.map((b) => b.new), td.map((b) => b.label), 900, 60, 'new'));
    }
    sec.appendChild(table('day-trend', trendCols({key: 'label', label: 'Day'}), td));
  });

  show('leaks');
  document.body.setAttribute('data-ready', '1');
})();
