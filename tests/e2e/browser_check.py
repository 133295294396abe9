# SPDX-License-Identifier: Apache-2.0
# browser_check.py: checks shared by tests/e2e/browser_*.sh on snapshots of
# tests/programs/browser/page.html. usage:
#   browser_check.py summary HISTO.json GOLDEN.classes.tsv   histo --json == DevTools' Summary
#   browser_check.py compare DIFF.json GOLDEN.diff.tsv       diff --json == DevTools' Comparison
#   browser_check.py detached DIFF_TF.json HISTO_DET.json    the planted DOM became detached
#   browser_check.py causes LEAKS.json                       one top-level group per cause
#   browser_check.py traced ANALYZE.json HISTO_DET.json      analyze traces the 250 detached
#                                                            panels, one group, every detached
#                                                            byte retained by them
#   browser_check.py watched ANALYZE.json                    analyze --watch 'Detached <li>'
#                                                            traces or counts the 1,250 items
#   browser_check.py fiber ANALYZE.json [MEMLAB.txt]         analyze on fiber.html's final
#                                                            snapshot: the 20 unmounted row
#                                                            fibers, the detached <section> and
#                                                            <aside>, nothing else; with memlab's
#                                                            find-leaks text, its clusters
#                                                            where it is right, same sizes
# Exit 0 when the check holds; a line on stderr says what differs.
import json
import re
import sys


def esc(s):
    return s.replace('\\', '\\\\').replace('\t', '\\t').replace('\n', '\\n')


def summary(doc, golden):
    got = {esc(c['key']): (esc(c['name']), c['count'], c['distance'], c['shallow'],
                           c['retained']) for c in doc['classes']}
    want, total = {}, None
    for line in open(golden, encoding='utf-8'):
        p = line.rstrip('\n').split('\t')
        if p[0] == '#total':
            total = int(p[1])
            continue
        want[p[0]] = (p[1], int(p[2]), int(p[3]), int(p[4]), int(p[5]))
    bad = sorted(k for k in set(got) | set(want) if got.get(k) != want.get(k))
    for k in bad[:5]:
        print('  %r: devtools %s, leakray %s' % (k, want.get(k), got.get(k)), file=sys.stderr)
    rets = [c['retained'] for c in doc['classes']]
    if doc['total']['heap_total'] != total:
        print('  heap total %d, devtools %s' % (doc['total']['heap_total'], total),
              file=sys.stderr)
    return (not bad and doc['total']['heap_total'] == total and doc['sort'] == 'retained'
            and rets == sorted(rets, reverse=True) and len(want) > 100)


def compare(doc, golden):
    got = {esc(c['key']): (esc(c['name']), c['new'], c['deleted'], c['alloc_size'],
                           c['freed_size']) for c in doc['classes']}
    want = {}
    for line in open(golden, encoding='utf-8'):
        p = line.rstrip('\n').split('\t')
        want[p[0]] = (p[1], int(p[2]), int(p[3]), int(p[4]), int(p[5]))
    bad = sorted(k for k in set(got) | set(want) if got.get(k) != want.get(k))
    for k in bad[:5]:
        print('  %r: devtools %s, leakray %s' % (k, want.get(k), got.get(k)), file=sys.stderr)
    print('  %d changed classes, %d differ' % (len(want), len(bad)))
    return not bad and len(want) >= 1


def detached(tf, det):
    rows = {c['name']: (c['new'], c['deleted']) for c in tf['classes']}
    counts = {c['name']: c['count'] for c in det['classes']}
    return (rows.get('Detached <div>') == (250, 0) and rows.get('Detached <ul>') == (250, 0)
            and rows.get('Detached <h2>') == (200, 0) and rows.get('Detached <li>') == (1250, 0)
            and rows.get('<li>', (0, 0))[1] >= 1250
            and all(c['name'].startswith('Detached ') for c in det['classes'])
            and counts.get('Detached <div>') == 250 and counts.get('Detached <li>') == 1250
            and det['total']['detached_count'] == det['total']['count'])


def cause_of(c):
    # A single object of a cause's shape (V8's literal boilerplate) is no group of its own.
    if c['count'] < 2:
        return None
    t = c['title']
    if t.startswith('Detached <div class="panel"> (detached tree roots)'):
        return 'detached DOM'
    if 'onResize' in t or 'ResizePayload' in t:
        return 'resize listeners'
    if t.startswith('Object {key, hits, tags}'):
        return 'Map entries'
    return None


def causes(doc):
    cl = doc['clusters']

    def top_of(c):
        while c['nested_in'] is not None:
            c = cl[c['nested_in'] - 1]
        return c['rank']
    tops = {}
    for c in cl:
        k = cause_of(c)
        if k:
            tops.setdefault(k, set()).add(top_of(c))
    planted = set().union(*tops.values()) if tops else set()
    heap = doc['heap_retained']
    other = [c for c in cl if c['nested_in'] is None and c['rank'] not in planted
             and c['retained'] * 100 > heap]
    print('  top-level groups per cause: %s; other top-level groups above 1%% of the heap: %s'
          % ({k: len(v) for k, v in sorted(tops.items())},
             [(c['title'][:60], c['retained']) for c in other]))
    by = {k: [c for c in cl if cause_of(c) == k] for k in tops}
    roots = [c for c in by.get('detached DOM', [])]
    inner = [c for c in cl if c['title'].startswith(('Detached <h2>', 'Detached <ul>'))]
    return (sorted(tops) == ['Map entries', 'detached DOM', 'resize listeners']
            and all(len(v) == 1 for v in tops.values())
            and [c['count'] for c in roots] == [250]
            and [c['count'] for c in cl if 'onResize' in c['title']] == [300]
            and [c['count'] for c in by['Map entries']] == [5000]
            and inner and all(c['nested_in'] == roots[0]['rank'] for c in inner)
            and not [c for c in cl if c['title'].startswith('system / ')]
            and len(other) <= 2)


def traced(doc, det):
    """`analyze` on the final snapshot (no --watch): the leaking objects are the detached DOM
    nodes still retained, here the 250 panel roots (their <h2>, <ul>, <li> and text hang under
    them), all reached through window.detachedPanels: one application group retaining every
    detached byte, nothing unreachable. What the live page holds is not leaking (browser.rules:
    its context and its window), so the group is titled by the page's own reference,
    `window.detachedPanels`, not by V8's link from the context to the window."""
    tr = doc['traces']
    groups = doc['application_leaks']
    classes = {t['elements'][-1]['class'] for t in tr}
    why = {t['elements'][-1]['reason'] for t in tr}
    ok = (len(tr) == 250 and len(groups) == 1 and classes == {'Detached <div>'}
          and all('detached' in w for w in why) and not doc['unreachable_objects']
          and groups[0]['retained_bytes'] == det['total']['detached_shallow']
          and all(any(e.get('reference', {}).get('name') == 'detachedPanels'
                      for e in t['elements']) for t in tr[:5])
          and groups[0]['short_description'].endswith('.detachedPanels')
          and tr[0]['elements'][0]['leaking'] == 'NO')
    if not ok:
        print('  %d traces, %d groups, classes %s, retained %s of %s detached bytes, title %s'
              % (len(tr), len(groups), sorted(classes)[:3],
                 groups[0]['retained_bytes'] if groups else None,
                 det['total']['detached_shallow'],
                 groups[0]['short_description'] if groups else None), file=sys.stderr)
    return ok


def memlab_clusters(path):
    """memlab's printed clusters: (retained bytes as printed, [(edge, node name), ...])."""
    out, cur = [], None
    for line in open(path, encoding='utf-8'):
        line = line.rstrip('\n')
        m = re.match(r'--Retained size of leaked objects: ([0-9.]+)(KB|MB| bytes)--', line)
        if m:
            scale = {'KB': 1000, 'MB': 1000000, ' bytes': 1}[m.group(2)]
            cur = (float(m.group(1)) * scale, [])
            out.append(cur)
            continue
        m = re.match(r'\s*(?:--(.*) \([a-z ]+\)--->\s+)?\[(.*?)\]? \(([a-z ]+)\) @\d+', line)
        if cur and m:
            cur[1].append((m.group(1), m.group(2)))
    return out


def memlab_right(trace):
    """The leak's top on memlab's trace (its first detached object) when memlab is right about
    it; None for its two misreadings on this page: a fiber listed in its parent's `deletions`
    (a commit in progress: memlab exempts the fiber, not the DOM it holds) and a mounted host
    fiber reached from its attached element (`return` leads to the HostRoot; memlab's
    dominator heuristic calls it detached)."""
    for k, (edge, name) in enumerate(trace):
        if name.startswith('Detached '):
            if any(e == 'deletions' for e, _ in trace[:k + 1]):
                return None
            if edge and edge.startswith('__reactFiber$') and not trace[k - 1][1].startswith(
                    'Detached '):
                return None
            cls = 'FiberNode' if name.startswith('Detached FiberNode') else \
                re.sub(r'^(Detached <[a-z0-9]+).*', r'\1>', name)
            return cls, edge
    return None


def fiber(doc, memlab=None):
    """`analyze` (no --watch) on the final snapshot of fiber.html: one group of 20 unmounted
    row fibers, each reached through its store listener's `fiber` variable, one detached
    <section> (window.shadowHost), one detached <aside> an attached <nav> keeps in an expando
    (lastTip); no trace ends at a detached <div> (the rows' DOM is their
    fibers' leak) nor passes a `deletions` array. With memlab's find-leaks text: every cluster
    memlab is right about is one group of ours, ending at the same class through the same
    reference, retaining what memlab prints for the cluster (to its rounding)."""
    tr = doc['traces']
    groups = doc['application_leaks']
    got = {}
    for g in groups:
        ends = {(tr[i]['elements'][-1]['class'], tr[i]['elements'][-2]['reference']['name'])
                for i in g['traces']}
        if len(ends) != 1:
            print('  group %s ends at %s' % (g['signature'][:8], sorted(ends)), file=sys.stderr)
            return False
        got[ends.pop()] = (len(g['traces']), g['retained_bytes'])
    ok = (got.get(('FiberNode', 'fiber'), (0,))[0] == 20
          and got.get(('Detached <section>', 'shadowHost'), (0,))[0] == 1
          and got.get(('Detached <aside>', 'lastTip'), (0,))[0] == 1 and len(got) == 3
          and not any(e.get('reference', {}).get('name') == 'deletions'
                      for t in tr for e in t['elements'])
          and not doc['unreachable_objects'])
    if not ok:
        print('  groups (end, reference): %s' % sorted(got.items()), file=sys.stderr)
    if memlab is None or not ok:
        return ok
    right = {}
    for size, trace in memlab_clusters(memlab):
        top = memlab_right(trace)
        if top:
            right[top] = size
    for top, size in sorted(right.items()):
        mine = got.get(top, (0, None))[1]
        # memlab prints one decimal: 15.9KB is 15,850 up to 15,950 bytes
        slack = 50 if size >= 1000 else 0
        if mine is None or abs(mine - size) > slack:
            print('  memlab %s retains %s, leakray %s' % (top, size, mine), file=sys.stderr)
            ok = False
    # memlab drops a trace whose detached node an attached one holds, the page's own expando
    # (nav.lastTip) included: the one group memlab has no cluster for
    if set(right) | {('Detached <aside>', 'lastTip')} != set(got):
        print('  memlab right about %s, leakray %s' % (sorted(right), sorted(got)),
              file=sys.stderr)
        ok = False
    return ok


def watched(doc):
    """`analyze --watch 'Detached <li>'`: DevTools' class name taken as it is; the 1,250 list
    items of the detached panels are traced or counted as also retained, nothing else."""
    tr = doc['traces']
    ok = (len(tr) + doc['also_retained'] == 1250
          and all(t['elements'][-1]['class'] == 'Detached <li>' for t in tr))
    if not ok:
        print('  %d traces + %d also retained, classes %s'
              % (len(tr), doc['also_retained'],
                 sorted({t['elements'][-1]['class'] for t in tr})[:3]), file=sys.stderr)
    return ok


def main():
    what = sys.argv[1]
    docs = [json.load(open(a)) for a in sys.argv[2:] if a.endswith('.json')]
    if what == 'summary':
        ok = summary(docs[0], sys.argv[3])
    elif what == 'compare':
        ok = compare(docs[0], sys.argv[3])
    elif what == 'detached':
        ok = detached(docs[0], docs[1])
    elif what == 'causes':
        ok = causes(docs[0])
    elif what == 'traced':
        ok = traced(docs[0], docs[1])
    elif what == 'watched':
        ok = watched(docs[0])
    elif what == 'fiber':
        ok = fiber(docs[0], sys.argv[3] if len(sys.argv) > 3 else None)
    else:
        sys.exit('unknown check ' + what)
    sys.exit(0 if ok else 1)


main()
