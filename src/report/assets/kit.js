/* kit.js: what the heap report (report.js) and the store dashboard (dashboard.js) draw alike,
 * inlined into both pages as a script of its own before the page's renderer: DOM building
 * with textContent only (nothing from a dump is ever parsed as HTML), sizes and counts as the
 * CLI prints them, sortable tables, tabs, and a leak trace in analyze's LeakCanary layout.
 * One global, LRKIT; no network. */
'use strict';
const LRKIT = (function () {
  function el(tag, props, kids) {
    const e = document.createElement(tag);
    for (const k of Object.keys(props || {})) {
      if (k === 'text') e.textContent = props[k];
      else if (k === 'cls') e.className = props[k];
      else if (k === 'on') e.addEventListener('click', props[k]);
      else if (k === 'style') Object.assign(e.style, props[k]);
      else e.setAttribute(k, String(props[k]));
    }
    for (const c of kids || []) {
      if (c === null || c === undefined) continue;
      e.appendChild(typeof c === 'string' || typeof c === 'number' ?
        document.createTextNode(String(c)) : c);
    }
    return e;
  }
  /* C's "%.1f": the tenth nearest the exact value, an exact tie (an odd number of quarters,
   * 1.25) to the even tenth, where toFixed rounds up (1,250,000 bytes: "1.2 MB", not 1.3). */
  function fixed1(v) {
    const q = v * 4;
    if (Number.isInteger(q) && q % 2 === 1) {
      const t = Math.floor(v * 10);
      return ((t % 2 === 0 ? t : t + 1) / 10).toFixed(1);
    }
    return v.toFixed(1);
  }
  /* The CLI's sizes: "232 B", "15.3 kB" (src/report/text.c rep_human_bytes). */
  function bytes(n) {
    if (n === undefined || n === null) return '';
    const u = ['B', 'kB', 'MB', 'GB', 'TB', 'PB', 'EB'];
    let i = 0, v = n;
    while (v >= 1000 && i < u.length - 1) { v /= 1000; i++; }
    return i === 0 ? v + ' B' : fixed1(v) + ' ' + u[i];
  }
  function num(n) { return n === undefined || n === null ? '' : Number(n).toLocaleString('en-US'); }

  /* Sortable table. cols: [{key, label, num, name, fmt(v, row), cell(row)}]; a `cell` column
   * draws its own content and does not sort. A click on a row selects it and calls onRow. */
  function table(cols, rows, onRow, id) {
    const t = el('table', id ? {cls: 'sortable', id: id} : {cls: 'sortable'});
    const head = el('tr');
    const body = el('tbody');
    let sortKey = null, desc = true;
    cols.forEach((c) => {
      c.th = el('th', {cls: c.num ? 'num' : '', text: c.label, on: () => {
        if (c.cell) return;
        desc = sortKey === c.key ? !desc : !!c.num;
        sortKey = c.key;
        draw();
      }});
      head.appendChild(c.th);
    });
    t.appendChild(el('thead', null, [head]));
    t.appendChild(body);
    function draw() {
      const r = rows.slice();
      if (sortKey) {
        const c = cols.find((x) => x.key === sortKey);
        r.sort((a, b) => {
          const x = a[sortKey], y = b[sortKey];
          const v = c.num ? (x || 0) - (y || 0) : String(x).localeCompare(String(y));
          return desc ? -v : v;
        });
      }
      cols.forEach((c) => { c.th.className = (c.num ? 'num ' : '') +
        (c.key === sortKey ? (desc ? 'sorted-desc' : 'sorted-asc') : ''); });
      body.textContent = '';
      for (const row of r) {
        const tr = el('tr', onRow ? {cls: 'clickable'} : null);
        if (row.signature) tr.setAttribute('data-signature', row.signature);
        for (const c of cols) {
          const v = row[c.key];
          const td = el('td', {cls: c.num ? 'num' : (c.name ? 'name' : (c.cell ? 'spark-cell' : ''))});
          if (c.cell) td.appendChild(c.cell(row));
          else td.textContent = c.fmt ? c.fmt(v, row) : (v === undefined || v === null ? '' : String(v));
          tr.appendChild(td);
        }
        if (onRow) tr.addEventListener('click', () => {
          for (const o of body.children) o.classList.remove('selected');
          tr.classList.add('selected');
          onRow(row, tr);
        });
        body.appendChild(tr);
      }
    }
    draw();
    return t;
  }

  /* Tabs over nav and main: addTab(id, label, build(section)) builds a section the first
   * time it is shown. */
  function tabs(nav, main) {
    const all = [];
    function show(id) {
      for (const t of all) {
        const on = t.id === id;
        t.btn.classList.toggle('active', on);
        t.sec.classList.toggle('active', on);
        if (on && !t.built) { t.built = true; t.build(t.sec); }
      }
    }
    function addTab(id, label, build) {
      const sec = el('section', {id: 'sec-' + id});
      const btn = el('button', {id: 'tab-' + id, role: 'tab', text: label, on: () => show(id)});
      nav.appendChild(btn);
      main.appendChild(sec);
      all.push({id, btn, sec, build, built: false});
    }
    return {addTab, show, list: all};
  }

  /* A leak trace (docs/json.md traces[]) as analyze prints it. */
  function traceView(t, id) {
    const box = el('div', id ? {cls: 'trace', id: id} : {cls: 'trace'});
    const line = (kids) => box.appendChild(el('span', {cls: 'line'}, kids));
    line(['\u252c\u2500\u2500\u2500']);
    line(['\u2502 GC Root: ' + t.gc_root]);
    line(['\u2502']);
    const n = t.elements.length;
    const gap = () => {
      line(['\u2502    \u2026 ' + num(t.elided_objects) + ' more reference' +
        (t.elided_objects === 1 ? '' : 's') + ' \u2026 (analyze --full shows them)']);
      line(['\u2502']);
    };
    if (t.elided_objects && !t.elided_after) gap();
    t.elements.forEach((e, i) => {
      if (t.elided_objects && i === t.elided_after && i > 0) gap();
      const last = i === n - 1;
      const bar = last ? '     ' : '\u2502    '; /* as analyze's text (no U+200B off a terminal) */
      line([(last ? '\u2570\u2192 ' : '\u251c\u2500 ') + e.class + ' ' + e.type]);
      /* a leak suspect's path has no Leaking status, only sizes */
      if (e.leaking)
        line([bar + 'Leaking: ', el('span', {cls: 'leak-' + e.leaking, text: e.leaking}),
          e.reason && e.leaking !== 'UNKNOWN' ? ' (' + e.reason + ')' : '']);
      if (e.retained_bytes !== undefined && e.leaking !== 'NO')
        line([bar + 'Retaining ' + bytes(e.retained_bytes) + (e.retained_objects === undefined
          ? '' : ' in ' + num(e.retained_objects) + ' objects')]);
      for (const l of e.labels || []) line([bar + l]);
      if (!last && e.reference) {
        /* LeakCanary's "static Owner.field", "Owner.field", "Owner[3]", "Owner <Java Local>" */
        const r = e.reference;
        const field = r.type === 'instance_field' || r.type === 'static_field';
        line(['\u2502    \u2193 ' + (r.static ? 'static ' : '') + r.owner + (field ? '.' : ''),
          el('span', {cls: r.suspect ? 'suspect' : '', text: r.display})]);
      }
    });
    return box;
  }

  return {el, bytes, num, table, tabs, traceView};
})();
