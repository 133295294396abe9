# SPDX-License-Identifier: Apache-2.0
# devtools_top.py TOP_JSON GOLD_TSV: whether `leakray top --top 0 --json` gives DevTools' own
# numbers for the 100 objects retaining most (GOLD_TSV, one row per object: id, name, self
# size, retained size, distance, as the golden scripts write them): the same self size,
# retained size and distance for each, and the same order of retained sizes. Exit 0 yes, 1 no
# (the first differing objects on stderr). Shared by the V8 end-to-end tests.
import json
import sys

objs = json.load(open(sys.argv[1]))['objects']
got = {x['id']: (x['shallow'], x['retained'], x['distance']) for x in objs}
rows = [line.rstrip('\n').split('\t') for line in open(sys.argv[2], encoding='utf-8')]
bad = [r[0] for r in rows if got.get(r[0]) != (int(r[2]), int(r[3]), int(r[4]))]
for b in bad[:5]:
    print('  %s: leakray %s' % (b, got.get(b)), file=sys.stderr)
order = [x['retained'] for x in objs[:len(rows)]] == [int(r[3]) for r in rows]
sys.exit(0 if not bad and order and len(rows) == 100 else 1)
