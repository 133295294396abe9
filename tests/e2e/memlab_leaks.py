# SPDX-License-Identifier: Apache-2.0
"""memlab_leaks.py: `leakray leaks --json` against memlab's find-leaks text on the same three
snapshots (as scripts/golden-memlab.sh churn stores it). Equal when both give the same number
of leak clusters and, cluster by cluster in memlab's order (retained size, descending), the
same count of similar leaks, the same retained size as memlab prints it (truncated to one
decimal, SI units) and the same first detached node on the trace (memlab ends a trace there
before clustering; leakray's cluster title names that node by tag and class, head_key).
usage: memlab_leaks.py LEAKS.json MEMLAB.txt [N_CLUSTERS]   exit 0 when equal"""
import json
import re
import sys


def readable(b):
    """memlab's Utils.getReadableBytes."""
    for lim, div, suf in ((1e12, 1e11, 'TB'), (1e9, 1e8, 'GB'), (1e6, 1e5, 'MB'), (1e3, 1e2, 'KB')):
        if b >= lim:
            n = int(b / div) / 10
            return ('%d' % n if n == int(n) else '%.1f' % n) + suf
    return '%d bytes' % b


def by_name(doc, closures=True):
    """leakray's leak clusters summed by representative name: {name: (count, retained)}, the
    form of memlab's --trace-all-objects table. memlab names an anonymous closure ''."""
    got = {}
    for c in doc['clusters']:
        name = c['representative']['name']
        name = '' if closures and name == 'Function' else name
        n, r = got.get(name, (0, 0))
        got[name] = (n + c['count'], r + c['retained'])
    return got


def table_rows(path):
    """memlab's --trace-all-objects table as golden-memlab.sh stores it: the first line, then
    (name, type, count, retained as memlab prints it) per row."""
    lines = open(path, encoding='utf-8').read().splitlines()
    return lines[0], [tuple(line.split('\t')) for line in lines[1:]]


def row_diff(got, name, count, ret):
    """None when leakray's sum for `name` is memlab's row, else what differs."""
    n, r = got.get(name, (0, 0))
    if (n, readable(r)) == (int(count), ret):
        return None
    return '%r: memlab %s %s, leakray %d %s' % (name, count, ret, n, readable(r))


def memlab_clusters(path):
    out, cur = [], None
    for line in open(path, encoding='utf-8'):
        m = re.match(r'--Similar leaks in this run: (\d+)--', line)
        if m:
            cur = {'similar': int(m.group(1)), 'retained': None, 'head': None}
            out.append(cur)
            continue
        m = re.match(r'--Retained size of leaked objects: (.*)--', line.strip())
        if m and cur:
            cur['retained'] = m.group(1)
            continue
        # memlab drops the closing bracket after a name ending in '>'
        m = re.search(r'\[(Detached .+?)\]? \(\w+\) @\d+', line)
        if m and cur and cur['head'] is None and m.group(1) != 'Detached InternalNode':
            cur['head'] = m.group(1)
    return out


def head_key(name):
    """What both name of a trace head: its tag and class attribute for an element
    ('Detached <div id="panel-3" class="panel">' and leakray's cluster title 'Detached <div
    class="panel"> (detached tree roots)' both give '<div class="panel">'), else the first word
    after 'Detached ' ('Detached FiberNode FunctionComponent' and 'FiberNode': 'FiberNode')."""
    if name is None:
        return None
    name = name[9:] if name.startswith('Detached ') else name
    m = re.match(r'<([\w-]+)([^>]*)>', name)
    if m:
        cls = re.search(r'class="([^"]*)"', m.group(2))
        return '<%s%s>' % (m.group(1), ' class="%s"' % cls.group(1) if cls else '')
    return name.split(' ')[0]


def main():
    doc = json.load(open(sys.argv[1]))
    ml = memlab_clusters(sys.argv[2])
    for c in ml:
        c['head'] = head_key(c['head'])
    ours = [{'similar': c.get('similar_leaks'), 'retained': readable(c['retained']),
             'head': head_key(c['title'])} for c in doc['clusters']]
    print('  memlab:  %s' % ml)
    print('  leakray: %s' % ours)
    same = ours == ml and doc.get('leak_filter') == 'memlab'
    if len(sys.argv) > 3:
        same = same and len(ours) == int(sys.argv[3])
    return 0 if same else 1


if __name__ == '__main__':
    sys.exit(main())
