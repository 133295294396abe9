#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# watch_group.py: checks one `analyze --watch CLASS --full --json` report of a planted leak
# (tests/e2e/v8_patterns.sh, v8_newer.sh): one application leak group holding COUNT watched
# objects (traces plus those also retained), every trace ending at CLASS and passing through a
# reference named VIA, none through a forbidden reference, and nothing unreachable.
# usage: watch_group.py JSON CLASS VIA COUNT (--no-weak | --not-through NAME)
import json
import sys

path, cls, via, count, how = sys.argv[1:6]
d = json.load(open(path))
tr = d['traces']
refs = [e.get('reference', {}) for t in tr for e in t['elements']]
if how == '--no-weak':
    forbidden = any(r.get('type') == 'weak' for r in refs)
elif how == '--not-through':
    forbidden = any(r.get('name') == sys.argv[6] for r in refs)
else:
    sys.exit('watch_group.py: unknown option ' + how)
ok = (len(d['application_leaks']) == 1 and len(tr) + d['also_retained'] == int(count)
      and all(t['elements'][-1]['class'] == cls for t in tr)
      and all(any(e.get('reference', {}).get('name') == via for e in t['elements'])
              for t in tr)
      and not forbidden and not d['unreachable_objects'])
if not ok:
    print('  %d groups, %d traces + %d also retained' % (len(d['application_leaks']), len(tr),
          d['also_retained']), file=sys.stderr)
sys.exit(0 if ok else 1)
