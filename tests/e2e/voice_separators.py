# SPDX-License-Identifier: Apache-2.0
"""voice_separators.py: lines of text output that print a count of four or more digits
without thousands separators (1234 where every verb says 1,234). Not counts, so not flagged:
object ids (@1234, 0x..., #12, a pid, a thread id, a hex signature), decimals, dimensions
(1920x1080), source lines (File.java:1234), dates and times, array indexes ([1234]),
percentages, and LeakCanary's METADATA lines, which leakray prints as LeakCanary does (byte
for byte, for Shark parity).
usage: voice_separators.py FILE...   prints the offending lines; exit 1 when there are any"""
import re
import sys

COUNT = re.compile(r'(?<![\w@#.:/\\$\-+\[(x=])(\d{4,})(?![\w.:/x%\]-])')
IDS = re.compile(r'(\bpid|\bthread|\bsignature|\bid|\bserial) $')
LEAKCANARY = re.compile(r'^(Class count|Instance count|Primitive array count|Object array count|'
                        r'Heap total bytes|Heap dump timestamp|Bitmap count|Bitmap total bytes|'
                        r'Large bitmap count|Large bitmap total bytes|Analysis duration|'
                        r'Heap dump duration): ')


def main():
    bad = 0
    for path in sys.argv[1:]:
        for n, line in enumerate(open(path, encoding='utf-8', errors='replace'), 1):
            if LEAKCANARY.match(line):
                continue
            if any(not IDS.search(line[:m.start()]) for m in COUNT.finditer(line)):
                print('%s:%d: %s' % (path, n, line.rstrip()[:160]))
                bad += 1
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
