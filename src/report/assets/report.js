/* report.js: the leakray HTML report's renderer (inlined into the page by src/report/html.c).
 * Reads the report model (docs/json.md "report") from the inert JSON element #leakray-data
 * and builds the page with DOM calls and textContent only: nothing from the dump is ever
 * parsed as HTML, so a class named like a closing script tag stays text. No network access:
 * images are data: URIs checked against an allow-list of image types. */
'use strict';
(function () {
  const D = JSON.parse(document.getElementById('leakray-data').textContent);
  const S = D.summary || {};
  const TOTAL = S.reachable_bytes || 1;

  const {el, bytes, num, table, traceView} = LRKIT;
  /* DevTools' distance: objects reached only through the VM's own roots carry 100,000,000
   * and up, which DevTools (and `histo`) show as a minus sign */
  const dist = (d) => d === undefined || d === null ? '' :
    d < 0 || d >= 100000000 ? '\u2212' : num(d);
  function pct(n) { return (100 * n / TOTAL).toFixed(2) + '%'; }

  /* ---- page frame: header, tabs, sections ---- */
  document.title = 'leakray: ' + (D.file || '').split('/').pop();
  const app = document.getElementById('app');
  app.appendChild(el('header', null, [
    el('h1', {text: 'leakray heap report'}),
    el('div', {cls: 'file', text: (D.file || '') + ' (' + D.format + (D.format_version ?
      ', ' + D.format_version : '') + ')'})]));
  if (D.truncated)
    app.appendChild(el('p', {cls: 'warning', role: 'alert', text: 'This dump is cut short ' +
      '(its writer stopped before the end): every number on this page counts only what it ' +
      'holds.'}));
  const nav = el('nav', {role: 'tablist'});
  const main = el('main');
  app.appendChild(nav);
  app.appendChild(main);
  const {addTab, show, list: tabs} = LRKIT.tabs(nav, main);

  /* ---- Summary ---- */
  addTab('summary', 'Summary', (sec) => {
    const kv = el('dl', {cls: 'kv'});
    const add = (k, v) => { kv.appendChild(el('dt', {text: k})); kv.appendChild(el('dd', {text: v})); };
    add('Objects', num(S.objects));
    add('References', num(S.edges));
    add('Classes', num(S.classes));
    /* one synthetic root (V8, Dart): the objects its categories hold, as DevTools' (GC roots) */
    if (S.root_objects !== undefined) {
      add('GC roots', num(S.root_objects) + ' objects held by the root, in ' +
        num(S.root_categories) + ' categories');
    } else add('GC roots', num(S.roots));
    if (S.threads) add('Threads', num(S.threads));
    add('Shallow size of all objects', bytes(S.shallow_bytes));
    if (S.native_bytes) add('Native memory (off the heap, freed by a Cleaner)', bytes(S.native_bytes));
    add('Reachable', bytes(S.reachable_bytes) + ' in ' + num(S.reachable_objects) + ' objects');
    if (S.mode === 'leaks') {
      add('Leaking objects', num(S.leaking_objects));
      add('Application leak groups', num(S.application_groups));
      add('Library leak groups', num(S.library_groups));
    }
    if (D.suspects) add('Largest retainers (leak suspects)', num(D.suspects.length));
    if (S.android !== undefined && D.format === 'hprof') add('Android', S.android ? 'yes' + (S.sdk_int !== undefined ?
      ' (API ' + S.sdk_int + ')' : '') : 'no');
    if (S.analysis_ms !== undefined) add('Analysis time', num(S.analysis_ms) + ' ms');
    sec.appendChild(kv);
    sec.appendChild(el('h3', {text: 'Biggest classes by retained size'}));
    const t = el('table', {cls: 'sortable', id: 'summary-classes'});
    for (const c of (D.classes || []).slice(0, 10)) {
      t.appendChild(el('tr', null, [el('td', {cls: 'name', text: c.name}),
        el('td', {cls: 'num', text: bytes(c.retained_bytes)}),
        el('td', {style: {width: '40%'}}, [el('div', {cls: 'bar',
          style: {width: Math.max(0.5, 100 * c.retained_bytes / TOTAL) + '%'}})])]));
    }
    sec.appendChild(t);
  });

  /* ---- Leaks ---- */
  if ((D.groups || []).length || (D.unreachable || []).length) {
    addTab('leaks', 'Leaks', (sec) => {
      (D.groups || []).forEach((g, gi) => {
        const body = el('div', {cls: 'body'});
        const box = el('div', {cls: 'group', id: 'group-' + gi}, []);
        const head = el('button', {cls: 'group-head', on: () => {
          box.classList.toggle('open');
          if (!body.firstChild) {
            if (g.description) body.appendChild(el('p', {cls: 'muted', text: g.description}));
            for (const ti of g.traces) {
              const t = D.traces[ti];
              if (t) body.appendChild(traceView(t));
            }
            if (g.traces.length < g.count)
              body.appendChild(el('p', {cls: 'muted', text: (g.traces.length ? 'The page shows ' +
                g.traces.length + ' of these ' : 'The page shows none of these ') + g.count +
                ' traces; `leakray analyze` prints them.'}));
          }
        }}, [el('span', {cls: 'count', text: g.count + '\u00d7'}),
          el('span', {cls: 'title', text: g.short_description || g.signature}),
          el('span', {cls: 'badge' + (g.library ? ' lib' : ''),
            text: g.library ? 'library leak' : 'application leak'}),
          el('span', {cls: 'muted', text: bytes(g.retained_bytes)})]);
        box.appendChild(head);
        box.appendChild(body);
        box.appendChild(el('div', {cls: 'muted', style: {padding: '0 12px 6px', fontSize: '11px'},
          text: 'Signature: ' + g.signature}));
        sec.appendChild(box);
      });
      if ((D.unreachable || []).length) {
        sec.appendChild(el('h3', {text: 'Leaking objects reachable from no GC root'}));
        sec.appendChild(table([{key: 'class', label: 'Class', name: true},
          {key: 'id', label: 'Object'}, {key: 'leaking', label: 'Leaking'}], D.unreachable));
      }
    });
  }

  /* ---- Largest retainers: MAT-style leak suspects, never leak traces ---- */
  if ((D.suspects || []).length) {
    addTab('suspects', 'Largest retainers', (sec) => {
      const st = D.suspect_settings || {};
      sec.appendChild(el('p', {cls: 'muted', text: 'Leak suspects as Eclipse MAT finds them: ' +
        'what holds over ' + st.share_percent + ' % of the heap (' + st.model + ' model, as ' +
        'leakray top), followed down while one child keeps over ' + st.accumulation_percent +
        ' % of its parent. A big retainer may be legitimate.'}));
      sec.appendChild(table([{key: 'description', label: 'Suspect', name: true},
        {key: 'class', label: 'Class', name: true},
        {key: 'retained_bytes', label: 'Retained', num: true, fmt: bytes},
        {key: 'heap_permille', label: '% of heap', num: true,
          fmt: (v) => (v / 10).toFixed(1) + '%'}], D.suspects));
      if (D.suspects_text)
        sec.appendChild(el('pre', {cls: 'trace', id: 'suspects-text', text: D.suspects_text}));
    });
  }

  /* ---- Dominator tree: squarified treemap with zoom ---- */
  function squarify(items, x, y, w, h) {
    /* items: [{v}], sorted desc; returns [{item, x, y, w, h}] (Bruls et al. 2000). */
    const out = [];
    let sum = items.reduce((a, b) => a + b.v, 0);
    if (sum <= 0) return out;
    let rest = items.slice();
    while (rest.length) {
      const short = Math.min(w, h);
      const scale = (w * h) / sum;
      let row = [], rowSum = 0, worst = Infinity;
      while (rest.length) {
        const it = rest[0];
        const s = rowSum + it.v;
        const side = (s * scale) / short;
        let wr = 0;
        for (const r of row.concat([it])) {
          const a = (r.v * scale);
          const len = a / side;
          wr = Math.max(wr, Math.max(side / len, len / side));
        }
        if (row.length && wr > worst) break;
        row.push(it); rowSum = s; worst = wr; rest.shift();
      }
      const side = (rowSum * scale) / short;
      let off = 0;
      for (const r of row) {
        const len = (r.v * scale) / side;
        if (w >= h) out.push({item: r, x: x, y: y + off, w: side, h: len});
        else out.push({item: r, x: x + off, y: y, w: len, h: side});
        off += len;
      }
      if (w >= h) { x += side; w -= side; } else { y += side; h -= side; }
      sum -= rowSum;
    }
    return out;
  }
  function buildTree(rows) {
    const nodes = rows.map((r, i) => ({i, parent: r[0], name: r[1], count: r[2], v: r[3],
      other: !!r[4], expanded: !!r[5], id: r[6], kids: []}));
    for (const n of nodes) if (n.parent >= 0 && nodes[n.parent]) nodes[n.parent].kids.push(n);
    return nodes;
  }
  function hue(s) {
    let h = 0;
    for (let i = 0; i < s.length; i++) h = (h * 31 + s.charCodeAt(i)) | 0;
    return Math.abs(h) % 360;
  }
  if (D.tree && (D.tree.objects || []).length > 1) {
    addTab('tree', 'Dominator tree', (sec) => {
      const views = {objects: buildTree(D.tree.objects), classes: buildTree(D.tree.classes || [])};
      let mode = 'objects', cur = 0;
      const bar = el('div', {cls: 'toolbar'});
      const bObj = el('button', {id: 'tree-by-object', text: 'By object', on: () => setMode('objects')});
      const bCls = el('button', {id: 'tree-by-class', text: 'By class', on: () => setMode('classes')});
      const crumbs = el('span', {cls: 'crumbs', id: 'tree-crumbs'});
      bar.appendChild(bObj); bar.appendChild(bCls); bar.appendChild(crumbs);
      const map = el('div', {id: 'treemap'});
      const details = el('div', {cls: 'details', id: 'tree-details',
        text: 'Click a cell to see it; click again (or double-click) to zoom in.'});
      sec.appendChild(el('p', {cls: 'muted', text: 'Areas are retained sizes in the dominator ' +
        'tree; the page holds the biggest subtrees, smaller siblings are folded into (other).'}));
      sec.appendChild(bar); sec.appendChild(map); sec.appendChild(details);
      function label(n) {
        if (n.other) return '(other: ' + num(n.count) + ' objects)';
        if (mode === 'classes' && n.i) return n.name + ' \u00d7' + num(n.count);
        return n.name + (n.id ? ' ' + n.id : '');
      }
      function setMode(m) {
        mode = m; cur = 0;
        /* A root with one child (V8's "(GC roots)") says nothing: start below such chains. */
        for (;;) {
          const k = views[mode][cur].kids.filter((x) => x.v > 0);
          if (k.length !== 1 || !k[0].kids.length) break;
          cur = k[0].i;
        }
        details.textContent = 'Click a cell to see it; click again (or double-click) to zoom in.';
        bObj.classList.toggle('active', m === 'objects');
        bCls.classList.toggle('active', m === 'classes'); draw(); }
      function describe(n) {
        details.textContent = '';
        details.appendChild(el('div', {cls: 'name', id: 'tree-selected', text: label(n)}));
        details.appendChild(el('div', {text: 'Retained ' + bytes(n.v) + ' (' + pct(n.v) +
          ' of the reachable heap)' + (n.count > 1 ? ', ' + num(n.count) + ' objects' : '')}));
        if (!n.expanded && !n.other && n.i)
          details.appendChild(el('div', {cls: 'muted', text: 'Its subtree is not in the page (too small).'}));
      }
      function draw() {
        const nodes = views[mode];
        const node = nodes[cur];
        crumbs.textContent = '';
        const chain = [];
        for (let n = node; n; n = n.parent >= 0 ? nodes[n.parent] : null) chain.unshift(n);
        chain.forEach((n, k) => {
          if (k) crumbs.appendChild(document.createTextNode(' \u203a '));
          crumbs.appendChild(el('button', {text: k ? label(n) : 'heap', on: () => { cur = n.i; draw(); }}));
        });
        map.textContent = '';
        const W = map.clientWidth || 900, H = map.clientHeight || 520;
        const items = node.kids.filter((k) => k.v > 0).sort((a, b) => b.v - a.v);
        for (const r of squarify(items, 0, 0, W, H)) {
          const n = r.item;
          const c = el('div', {cls: 'cell' + (n.other ? ' other' : ''), 'data-node': n.i,
            title: label(n) + '\n' + bytes(n.v) + ' (' + pct(n.v) + ')', style: {
              left: r.x + 'px', top: r.y + 'px', width: Math.max(0, r.w) + 'px',
              height: Math.max(0, r.h) + 'px',
              background: 'hsl(' + hue(n.name) + ',55%,' + (n.other ? 85 : 78) + '%)'}},
          [el('span', {cls: 'n', text: label(n)}), el('span', {text: bytes(n.v) + ' \u00b7 ' + pct(n.v)})]);
          /* zoom only where there is something to draw: children of 0 bytes make no cell */
          const deeper = n.kids.some((k) => k.v > 0);
          c.addEventListener('click', () => {
            if (c.classList.contains('picked') && deeper) { cur = n.i; draw(); describe(n); return; }
            for (const o of map.children) o.classList.remove('picked');
            c.classList.add('picked');
            describe(n);
          });
          c.addEventListener('dblclick', () => { if (deeper) { cur = n.i; draw(); } });
          map.appendChild(c);
        }
      }
      setMode('objects');
    });
  }

  /* ---- tables ---- */
  if ((D.top_objects || []).length) {
    addTab('objects', 'Biggest objects', (sec) => {
      /* an object by its own name and id as DevTools lists it ("BuiltinModule @49831") */
      const rows = D.top_objects.map((o) => Object.assign({}, o,
        {object: o.name !== undefined ? o.name + ' ' + o.id : o.id}));
      sec.appendChild(table([{key: 'class', label: 'Class', name: true},
        {key: 'object', label: 'Object', name: true},
        {key: 'shallow_bytes', label: 'Shallow', num: true, fmt: bytes},
        {key: 'retained_bytes', label: 'Retained', num: true, fmt: bytes},
        {key: 'retained_bytes', label: '% of heap', num: true, fmt: pct}], rows));
    });
  }
  if ((D.classes || []).length) {
    addTab('classes', 'Classes', (sec) => {
      sec.appendChild(table([{key: 'name', label: 'Class', name: true},
        {key: 'count', label: 'Objects', num: true, fmt: num},
        {key: 'shallow_bytes', label: 'Shallow', num: true, fmt: bytes},
        {key: 'retained_bytes', label: 'Retained', num: true, fmt: bytes}], D.classes));
    });
  }
  if ((D.devtools_summary || []).length) {
    addTab('devtools', 'Summary (DevTools)', (sec) => {
      const pane = el('div', {cls: 'details', id: 'retainers', text: 'Click a row to see the retainers of its biggest object.'});
      sec.appendChild(table([{key: 'name', label: 'Constructor', name: true},
        {key: 'distance', label: 'Distance', num: true, fmt: dist},
        {key: 'count', label: 'Objects', num: true, fmt: num},
        {key: 'shallow_bytes', label: 'Shallow size', num: true, fmt: bytes},
        {key: 'retained_bytes', label: 'Retained size', num: true, fmt: bytes}], D.devtools_summary,
      (row) => {
        pane.textContent = '';
        const s = row.sample;
        if (!s) return;
        pane.appendChild(el('div', {text: 'Retainers of ' + row.name + ' ' + s.id + ' (retains ' +
          bytes(s.retained_bytes) + ', distance ' + dist(s.distance) + ')'}));
        const list = el('div', {cls: 'trace'});
        for (const r of s.retainers) list.appendChild(el('span', {cls: 'line',
          text: '\u2190 ' + r.edge + ' in ' + r.from + ' ' + r.id}));
        pane.appendChild(list);
      }));
      sec.appendChild(pane);
    });
  }
  if ((D.clusters || []).length) {
    addTab('clusters', 'Clusters', (sec) => {
      const pane = el('div', {cls: 'details', text: 'Click a cluster to see its retaining chain.'});
      sec.appendChild(table([{key: 'title', label: 'Cluster', name: true}, {key: 'rule', label: 'Rule'},
        {key: 'directory', label: 'Origin', name: true},
        {key: 'count', label: 'Objects', num: true, fmt: num},
        {key: 'retained_bytes', label: 'Retained', num: true, fmt: bytes}], D.clusters, (row) => {
        pane.textContent = '';
        const list = el('div', {cls: 'trace'});
        for (const c of row.chain) list.appendChild(el('span', {cls: 'line',
          text: (c.edge !== undefined ? '  \u2192 ' + (c.name !== undefined ? c.name : c.edge) +
            ' \u2192 ' : '') + c.node}));
        pane.appendChild(list);
      }));
      sec.appendChild(pane);
    });
  }
  const DUP = D.duplicates;
  const JSD = D.js_strings && D.js_strings.strings ? D.js_strings : null; /* none: no tab */
  /* A value as one line of text: control characters and line separators made visible, cut
   * at whole code points (never inside a surrogate pair). */
  function shortValue(v, max) {
    const cps = Array.from(v || '');
    const s = (cps.length > max ? cps.slice(0, max).join('') + '\u2026' : cps.join(''));
    return s.replace(/[\u0000-\u001f\u007f\u2028\u2029]/g,
      (c) => '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0'));
  }
  /* memlab's duplicate strings (V8-style snapshots): its pattern statistics and its two
   * top-10 lists, the numbers `leakray dupes` prints. */
  function jsStrings(sec) {
    const all = (JSD.patterns || [])[0] || {count: 0, dup_count: 0, size: 0, dup_size: 0};
    sec.appendChild(el('h3', {id: 'js-dupes-head', text: 'Duplicate strings (' +
      bytes(Math.round(all.dup_size)) + ' duplicated)'}));
    sec.appendChild(el('p', {cls: 'muted', text: num(JSD.strings) + ' strings (string and ' +
      'concatenated string nodes), ' + num(JSD.values) + ' distinct values; ' +
      num(JSD.code_dominated) + ' left out as dominated by code. As memlab\'s string analysis: ' +
      'sizes are retained sizes in memlab\'s dominator tree, and a value\'s duplicated size is ' +
      'its retained size \u00d7 (copies \u2212 1) / copies.' + (JSD.unverified ? ' ' +
      num(JSD.unverified) + ' strings were grouped on hash and length past the compare cap.' :
      '')}));
    const share = (a, b) => (b ? (100 * a / b).toFixed(2) : '0.00') + '%';
    sec.appendChild(table([{key: 'name', label: 'Pattern'},
      {key: 'count', label: 'Strings', num: true, fmt: num},
      {key: 'dup_count', label: 'Duplicated', num: true,
        fmt: (v, r) => num(v) + ' (' + share(v, r.count) + ')'},
      {key: 'size', label: 'Retained', num: true, fmt: bytes},
      {key: 'dup_size', label: 'Duplicated retained', num: true,
        fmt: (v, r) => bytes(Math.round(v)) + ' (' + share(v, r.size) + ')'}], JSD.patterns || [],
    null, 'js-dupes-patterns'));
    const pane = el('div', {cls: 'details', id: 'js-dupes-value',
      text: 'Click a row to see its value and objects.'});
    const pick = (g) => {
      pane.textContent = '';
      pane.appendChild(el('div', {text: num(g.count) + ' copies, retained ' + bytes(g.size) +
        ', duplicated ' + bytes(g.wasted_bytes) + '; the value is ' + num(g.value_bytes) +
        ' bytes' + (g.value_truncated ? ' (its first ' +
        num(new TextEncoder().encode(g.value).length) + ' shown)' : '')}));
      pane.appendChild(el('pre', {cls: 'trace', text: g.value}));
      pane.appendChild(el('div', {cls: 'muted', text: 'Objects: ' + g.ids.join(' ') +
        (g.count > g.ids.length ? ' \u2026 and ' + num(g.count - g.ids.length) + ' more' : '')}));
      pane.scrollIntoView({block: 'nearest'});
    };
    const cols = () => [{key: 'value', label: 'Value', name: true,
      fmt: (v, r) => shortValue(v, 120) + (r.value_truncated ? ' (' + num(r.value_bytes) +
        ' bytes)' : '')},
      {key: 'count', label: 'Copies', num: true, fmt: num},
      {key: 'size', label: 'Retained', num: true, fmt: bytes},
      {key: 'wasted_bytes', label: 'Duplicated', num: true, fmt: bytes},
      {key: 'ids', label: 'Objects', fmt: (v, r) => v.slice(0, 3).join(' ') +
        (r.count > 3 ? ' \u2026' : '')}];
    sec.appendChild(el('h3', {text: 'Top duplicated strings by retained size'}));
    const list = (rows, id) => sec.appendChild((rows || []).length ? table(cols(), rows, pick, id) :
      el('p', {cls: 'muted', text: 'No value has two copies.'}));
    list(JSD.top_size, 'js-dupes-size');
    sec.appendChild(el('h3', {text: 'Top duplicated strings by count'}));
    list(JSD.top_count, 'js-dupes-count');
    sec.appendChild(pane);
  }
  if ((DUP && (DUP.bitmaps.length || DUP.arrays.length || DUP.strings.length)) || JSD) {
    addTab('dupes', 'Duplicates', (sec) => {
      const okImage = /^data:image\/(png|jpeg|webp);base64,[A-Za-z0-9+/=]*$/;
      if (DUP && DUP.bitmaps.length) {
        sec.appendChild(el('h3', {text: 'Duplicate bitmaps (' + bytes(DUP.wasted_bitmaps) + ' wasted)'}));
        const box = el('div', {cls: 'bitmaps'});
        for (const b of DUP.bitmaps) {
          const card = el('div', {cls: 'bitmap'});
          if (b.image && okImage.test(b.image)) card.appendChild(el('img', {src: b.image,
            alt: b.width + 'x' + b.height}));
          else card.appendChild(el('div', {cls: 'muted', text: '(no pixels in the dump)'}));
          card.appendChild(el('div', {text: b.count + ' copies of ' + b.width + '\u00d7' + b.height +
            ', ' + bytes(b.wasted_bytes) + ' wasted'}));
          card.appendChild(el('div', {cls: 'muted', text: b.ids.join(' ')}));
          box.appendChild(card);
        }
        sec.appendChild(box);
      }
      if (DUP && DUP.arrays.length) {
        sec.appendChild(el('h3', {text: 'Identical arrays (' + bytes(DUP.wasted_arrays) + ' wasted)'}));
        sec.appendChild(table([{key: 'type', label: 'Type'}, {key: 'length', label: 'Length', num: true, fmt: num},
          {key: 'count', label: 'Copies', num: true}, {key: 'bytes', label: 'Bytes each', num: true, fmt: bytes},
          {key: 'wasted_bytes', label: 'Wasted', num: true, fmt: bytes}], DUP.arrays));
      }
      if (DUP && DUP.strings.length) {
        sec.appendChild(el('h3', {text: 'Duplicate strings (' + bytes(DUP.wasted_strings) + ' wasted)'}));
        sec.appendChild(table([{key: 'value', label: 'Value', name: true,
          fmt: (v, r) => v + (r.value_truncated ? ' \u2026 (' + num(r.value_bytes) + ' bytes)' : '')},
          {key: 'count', label: 'Copies', num: true}, {key: 'wasted_bytes', label: 'Wasted', num: true, fmt: bytes}],
        DUP.strings));
      }
      if (JSD) jsStrings(sec);
    });
  }
  if ((D.threads || []).length) {
    addTab('threads', 'Threads', (sec) => {
      for (const t of D.threads) {
        const body = el('div', {cls: 'body'});
        const box = el('div', {cls: 'group'});
        box.appendChild(el('button', {on: () => box.classList.toggle('open')}, [
          el('span', {cls: 'title', text: t.name || '(unnamed)'}),
          el('span', {cls: 'muted', text: (t.id || '') + ' ' + bytes(t.retained_bytes)})]));
        const tr = el('div', {cls: 'trace'});
        t.frames.forEach((f, i) => {
          tr.appendChild(el('span', {cls: 'line', text: 'at ' + f}));
          for (const l of t.locals) if (l.frame === i) tr.appendChild(el('span', {cls: 'line',
            text: '    local ' + l.class + ' ' + l.id + ' (' + bytes(l.retained_bytes) + ')'}));
        });
        for (const l of t.locals) if (l.frame < 0 || l.frame >= t.frames.length)
          tr.appendChild(el('span', {cls: 'line', text: 'local ' + l.class + ' ' + l.id + ' (' +
            bytes(l.retained_bytes) + ')'}));
        body.appendChild(tr);
        box.appendChild(body);
        sec.appendChild(box);
      }
    });
  }
  show(tabs.length > 1 && tabs[1].id === 'leaks' ? 'leaks' : 'summary');
  document.body.setAttribute('data-ready', '1');
})();
