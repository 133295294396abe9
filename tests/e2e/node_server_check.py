#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# node_server_check.py: judges leakray's answers on one planted leak of
# tests/programs/node/node_server.js (tests/e2e/node_server.sh).
#   leaks LEAKS_JSON CLASS VIA COUNT: `leaks --top 0 --json` puts all COUNT new CLASS objects
#     in one cluster, that cluster is the top answer (rank 1) or nested, cluster by cluster,
#     in it, and the top answer's reference chain passes through the reference VIA (the
#     emitter, Map, Set or timer list that leaks them).
#   watch WATCH_JSON CLASS VIA COUNT GROUPS: `analyze --watch CLASS --full --json` traces
#     COUNT objects (traces plus those also retained) in at most GROUPS leak groups, every
#     trace through VIA, nothing unreachable.
import json
import sys


def fail(msg):
    print('  ' + msg, file=sys.stderr)
    sys.exit(1)


def leaks(path, cls, via, count):
    d = json.load(open(path))
    by_rank = {c['rank']: c for c in d['clusters']}
    mine = [c for c in d['clusters'] if c['representative']['name'] == cls]
    if len(mine) != 1 or mine[0]['count'] != count:
        fail('%s: %d clusters, counts %s (want one of %d)' %
             (cls, len(mine), [c['count'] for c in mine[:8]], count))
    c, seen = mine[0], set()
    while c['nested_in'] is not None and c['rank'] not in seen:
        seen.add(c['rank'])
        c = by_rank[c['nested_in']]
    if c['rank'] != 1:
        fail('%s sits under cluster #%d %r, not the top answer #1 %r' %
             (cls, c['rank'], c['title'], by_rank[1]['title']))
    if not any(e.get('edge') == via for e in c['chain']):
        fail('top answer %r: chain %s does not pass through %s' %
             (c['title'], ' '.join(e.get('edge', '') for e in c['chain']), via))


def watch(path, cls, via, count, groups):
    d = json.load(open(path))
    tr = d['traces']
    n = len(tr) + d['also_retained']
    if not 1 <= len(d['application_leaks']) <= groups or n != count:
        fail('%s: %d groups, %d traced + %d also retained (want <= %d groups, %d objects)' %
             (cls, len(d['application_leaks']), len(tr), d['also_retained'], groups, count))
    for t in tr:
        if t['elements'][-1]['class'] != cls:
            fail('a trace ends at %s' % t['elements'][-1]['class'])
        if not any(e.get('reference', {}).get('name') == via for e in t['elements']):
            fail('a trace of %s does not pass through %s' % (cls, via))
    if d['unreachable_objects']:
        fail('unreachable objects: %d' % len(d['unreachable_objects']))


if __name__ == '__main__':
    a = sys.argv
    if a[1] == 'leaks':
        leaks(a[2], a[3], a[4], int(a[5]))
    elif a[1] == 'watch':
        watch(a[2], a[3], a[4], int(a[5]), int(a[6]))
    else:
        fail('usage: node_server_check.py leaks|watch ...')
