#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# test-cpu.sh BUILD [JOBS]: runs each test of BUILD on its own (JOBS at once, default 1) and
# prints "NAME WALL CPU" per test: the seconds it took and the processor seconds its
# processes used. scripts/test-costs.sh --cpu FILE reads it to tell the tests that mostly
# wait (a JVM's timed stages, a server's timeout) from the busy ones.
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: $0 BUILD [JOBS]" >&2; exit 2; }
build=$(cd "$1" && pwd)
jobs=${2:-1}
one() { # NAME: one test, timed
    local s e t
    s=$(date +%s.%N)
    # `times` prints the shell's then its children's user and system time: the last line
    t=$(bash -c 'cd "$1" && ctest -R "^$2\$" >/dev/null 2>&1; times' _ "$build" "$1" | tail -1)
    e=$(date +%s.%N)
    python3 -c 'import re, sys
def sec(v):
    m, s = re.match(r"(\d+)m([\d.]+)s", v).groups()
    return int(m) * 60 + float(s)
u, s = sys.argv[3].split()
print("%s %.1f %.1f" % (sys.argv[1], float(sys.argv[2]), sec(u) + sec(s)))' \
        "$1" "$(echo "$e - $s" | bc)" "$t"
}
export -f one
export build
(cd "$build" && ctest -N) | sed -n 's/^ *Test *#[0-9]*: //p' |
    xargs -P "$jobs" -I{} bash -c 'one "$1"' _ {}
