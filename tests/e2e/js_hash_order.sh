#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# js_hash_order.sh: one Node program (tests/programs/node/hash_order.js) run under two V8 hash
# seeds, as two restarts of a service are: V8 lists `global`'s properties, and a dictionary
# object's, in the seeded hash's order, so the snapshots list the equally short ways into the
# leaks (global.setTimeout / clearInterval / ... into the timer lists; registry.alpha / beta /
# ... into a Map of Sessions; Node's timer lists by period, a number-keyed dictionary, into
# Beats two intervals of two periods keep) in another order. The traces' signatures, their paths, the
# suspects' paths and the `leaks` clusters must not change with the seed (a leak store would
# otherwise read every restart as "fixed" + "new"), and the way taken is the first by name.
set -euo pipefail
: "${LEAKRAY:?}" "${LEAKRAY_SRC:?}" "${LEAKRAY_BUILD:?}"
. "$LEAKRAY_SRC/tests/e2e/need_lib.bash"
need_tools node python3
work="$LEAKRAY_BUILD/tmp/js_hash_order"
rm -rf "$work"
mkdir -p "$work"
fail() { echo "FAIL: $*" >&2; exit 1; }
for seed in 1 2; do
    node --expose-gc --hash-seed=$seed "$LEAKRAY_SRC/tests/programs/node/hash_order.js" \
        "$work/s$seed.heapsnapshot" >/dev/null
    rc=0
    "$LEAKRAY" analyze "$work/s$seed.heapsnapshot" --watch Beat --json --no-timing \
        --no-suspects >"$work/b$seed.json" 2>"$work/b$seed.err" ||
        fail "analyze --watch Beat seed $seed: $(cat "$work/b$seed.err")"
    "$LEAKRAY" analyze "$work/s$seed.heapsnapshot" --watch Session --watch Timeout --json \
        --no-timing >"$work/a$seed.json" 2>"$work/a$seed.err" || rc=$?
    [ $rc = 0 ] || fail "analyze seed $seed: exit $rc: $(cat "$work/a$seed.err")"
    rc=0
    "$LEAKRAY" clusters "$work/s$seed.heapsnapshot" --json --no-timing --top 0 \
        >"$work/c$seed.json" 2>"$work/c$seed.err" || rc=$?
    [ $rc = 0 ] || fail "clusters seed $seed: exit $rc: $(cat "$work/c$seed.err")"
done
python3 - "$work" <<'PY' || fail "paths depend on the hash seed"
import json, sys
w = sys.argv[1]

def load(seed):
    return json.load(open('%s/a%d.json' % (w, seed))), json.load(open('%s/c%d.json' % (w, seed)))

def refs(path):
    return tuple((e['class'], e['reference']['name']) for e in path if e.get('reference'))

def view(a, c):
    traces = sorted((t['class'], t['signature'], refs(t['elements'])) for t in a['traces'])
    # the suspects' figures move by a few bytes from one process to the next: compared are
    # what they are and their paths
    suspects = sorted((s['kind'], s['class'], refs(s['path'])) for s in a['suspects'])
    # the leaks' clusters (a dictionary's own class name lists its properties in hash order)
    clusters = sorted((k.get('title'), k.get('count')) for k in c['clusters']
                      if k.get('title') in ('Session', 'Timeout'))
    return traces, suspects, clusters

a1, c1 = load(1)
a2, c2 = load(2)
v1, v2 = view(a1, c1), view(a2, c2)
# a suspect near the share in one process may fall under it in the other: each side's
# suspects clear of it (12 % and more) must be the other's too, path and all
for p, q in ((a1, v2[1]), (a2, v1[1])):
    for x in p['suspects']:
        key = (x['kind'], x['class'], refs(x['path']))
        if x['heap_percent'] >= 12 and key not in q:
            print('suspect in one seed only:', str(key)[:300])
            sys.exit(1)
v1, v2 = (v1[0], [], v1[2]), (v2[0], [], v2[2])
for what, x, y in zip(('traces', 'suspects', 'clusters'), v1, v2):
    if x != y:
        print('%s differ:' % what)
        for i, j in [(i, j) for i, j in zip(x, y) if i != j][:3]:
            print('  seed 1:', str(i)[:300])
            print('  seed 2:', str(j)[:300])
        sys.exit(1)
assert v1[2], 'no Session or Timeout cluster'
sessions = [t for t in a1['traces'] if t['class'] == 'Session']
timers = [t for t in a1['traces'] if t['class'] == 'Timeout']
assert len(sessions) >= 399 and timers, (len(sessions), len(timers))
s = refs(sessions[0]['elements'])
assert s[:2] == (('global', 'registry'), ('Object', 'alpha')), s
t = refs(timers[0]['elements'])
assert t[0] == ('global', 'clearImmediate'), t
# the Beats: two timer lists by period, number keys in hash order; the shorter period first
b1, b2 = (json.load(open('%s/b%d.json' % (w, k))) for k in (1, 2))
p1, p2 = ([refs(t['elements']) for t in b['traces'] if t['elements']] for b in (b1, b2))
assert p1 == p2 and p1, (p1[:1], p2[:1])
assert ('Object', '30000000') in p1[0], p1[0]
PY
echo "js_hash_order: ok"
