# SPDX-License-Identifier: Apache-2.0
# sql_check.py: checks `leakray sql` answers against leakray's other verbs, which compute the
# same numbers by other code (histo's streaming histogram, top's dominator tree selection,
# show's referrer list, path's per-object search). Used by tests/cli/sql_answers.sh.
# usage: sql_check.py LEAKRAY DUMP CHECK...   checks: histo top referrers merged:CLASS
import collections
import json
import subprocess
import sys

LEAKRAY, DUMP = sys.argv[1], sys.argv[2]
FAILS = []


def run(*args):
    p = subprocess.run([LEAKRAY, *args, '--json', '--no-timing'], capture_output=True,
                       text=True)
    if p.returncode != 0:
        sys.exit(f'FAIL: leakray {" ".join(args)} exited {p.returncode}: {p.stderr.strip()}')
    return json.loads(p.stdout)


def sql(q):
    d = run('sql', DUMP, q, '--max-rows', '0')
    return d['results'][-1]['rows']


def parse_id(s):
    return int(s[1:]) if s.startswith('@') else int(s, 16)


def check(what, ok, detail=''):
    if not ok:
        FAILS.append(f'{what}: {detail}')


def by_name(rows, key):
    out = collections.Counter()
    for r in rows:
        out[r['name'] if 'name' in r else r['class']] += r[key]
    return out


def check_histo():
    h = run('histo', DUMP)
    v8 = h.get('model') == 'devtools'
    synthetic = {'<class objects>', '<no class>', '<unnamed class>'}
    want_n = by_name([r for r in h['classes'] if r['name'] not in synthetic], 'count')
    want_b = by_name([r for r in h['classes'] if r['name'] not in synthetic], 'shallow')
    # DevTools' Summary counts objects of nonzero size only.
    where = 'shallow > 0 AND class IS NOT NULL' if v8 else 'class IS NOT NULL'
    rows = sql(f"SELECT class, count(*), sum(shallow) FROM objects WHERE {where} "
               f"GROUP BY class")
    got_n = {r[0]: r[1] for r in rows if r[0] != ''}
    got_b = {r[0]: r[2] for r in rows if r[0] != ''}
    for name in want_n:
        check('histo count', got_n.get(name) == want_n[name],
              f'{name}: sql {got_n.get(name)} histo {want_n[name]}')
        check('histo shallow', got_b.get(name) == want_b[name],
              f'{name}: sql {got_b.get(name)} histo {want_b[name]}')
    if not v8:
        check('histo classes', set(got_n) - {''} == set(want_n),
              f'{sorted(set(got_n) ^ set(want_n))[:5]}')
        tot = sql("SELECT count(*), sum(shallow) FROM objects")[0]
        check('histo total', tot == [h['total']['count'], h['total']['shallow']],
              f'sql {tot} histo {h["total"]}')
    print(f'histo: {len(want_n)} classes compared')


def check_top():
    t = run('top', DUMP, '--by', 'class', '--top', '0')
    names = collections.Counter(r['class'] for r in t['classes'])
    want = {r['class']: r['retained'] for r in t['classes'] if names[r['class']] == 1}
    rows = sql("SELECT name, retained FROM classes WHERE retained > 0")
    got = collections.Counter()
    for r in rows:
        got[r[0]] += r[1]
    for name, ret in want.items():
        check('class retained', got.get(name, 0) == ret, f'{name}: sql {got.get(name)} top {ret}')
    o = run('top', DUMP, '--top', '40')
    ids = [parse_id(r['id']) for r in o['objects']]
    rows = sql('SELECT id, retained FROM objects WHERE id IN (%s)' % ','.join(map(str, ids)))
    got = {r[0]: r[1] for r in rows}
    for r in o['objects']:
        i = parse_id(r['id'])
        check('object retained', got.get(i) == r['retained'],
              f'{r["id"]}: sql {got.get(i)} top {r["retained"]}')
    # the same ranking from SQL alone (top leaves out V8's synthetic nodes)
    best = sql("SELECT id FROM objects WHERE reachable AND kind != 'synthetic' "
               "ORDER BY retained DESC LIMIT 1")
    check('top object', not o['objects'] or
          got.get(best[0][0]) == o['objects'][0]['retained'], f'{best}')
    print(f'top: {len(want)} classes, {len(ids)} objects compared')


def check_referrers(n=8):
    o = run('top', DUMP, '--top', str(n))
    ids = [parse_id(r['id']) for r in o['objects']]
    ids += [r[0] for r in sql("SELECT id FROM objects WHERE kind = 'instance' "
                              "ORDER BY shallow DESC, id LIMIT 4")]
    # One run: the first lookups scan the edges, the later ones read reverse edges.
    d = run('sql', DUMP, '; '.join(f'SELECT src, name, kind, strength FROM edges WHERE dst = {x}'
                                   for x in ids), '--max-rows', '0')
    for x, res in zip(ids, d['results']):
        s = ('@%d' if DUMP.endswith(('.heapsnapshot', '.heapsnapshot.gz')) else '0x%x') % x
        sh = run('show', DUMP, s, '--limit', '0')['object']
        want = collections.Counter((parse_id(r['from']), r['name'], r['edge'], r['strength'])
                                   for r in sh['referrers'])
        got = collections.Counter(tuple(r) for r in res['rows'])
        check('referrers', got == want, f'{s}: sql {sorted(got)[:4]} show {sorted(want)[:4]}')
        check('referrers total', len(res['rows']) == sh['referrers_total'], s)
    print(f'referrers: {len(ids)} objects compared with show')


def check_merged(cls):
    m = run('path', DUMP, '--class', cls, '--subclasses', '--merged', '--limit', '0')
    parent, count, inst = {}, collections.Counter(), set()
    stack = [(n, None) for n in m['tree']]
    while stack:
        n, p = stack.pop()
        key = (p, n['id'], n.get('name'))
        parent[n['id']] = (p, n.get('reference'), n.get('name'))
        count[n['id']] = n['count']
        if n['instance']:
            inst.add(n['id'])
        stack.extend((c, n['id']) for c in n['children'])
    ids = run('instances', DUMP, cls, '--subclasses', '--limit', '0')['instances']
    through = collections.Counter()
    unreached = 0
    for r in ids:
        p = run('path', DUMP, r['id'])
        if not p['reachable']:
            unreached += 1
            check('merged unreachable', r['id'] not in inst, r['id'])
            continue
        chain = p['path']
        check('merged instance', r['id'] in inst, r['id'])
        prev = None
        for hop in chain:
            got = parent.get(hop['id'])
            check('merged hop', got == (prev, hop.get('reference'), hop.get('name')),
                  f'{r["id"]}: {hop["id"]} tree {got} path {(prev, hop.get("reference"))}')
            through[hop['id']] += 1
            prev = hop['id']
    check('merged counts', through == count, f'{sorted((through - count).items())[:3]}')
    check('merged totals', m['reachable'] == len(ids) - unreached and
          m['unreachable'] == unreached, f'{m["reachable"]} {m["unreachable"]} {unreached}')
    print(f'merged: {len(ids)} instances of {cls} compared with path, {unreached} unreachable')


for c in sys.argv[3:]:
    if c == 'histo':
        check_histo()
    elif c == 'top':
        check_top()
    elif c == 'referrers':
        check_referrers()
    elif c.startswith('merged:'):
        check_merged(c[7:])
    else:
        sys.exit(f'unknown check {c}')
for f in FAILS[:20]:
    print('FAIL:', f, file=sys.stderr)
sys.exit(1 if FAILS else 0)
