#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# shrinking_input.sh: a dump that becomes shorter while leakray reads it (rewritten in place by
# another process) ends with exit 4 and one line naming the file, never a bare SIGBUS. The
# cut is made at a fixed point, deterministically: gdb stops leakray once the file is mapped
# (at the HPROF reader's entry), truncates the file to 100 kB, and lets it run on; reading the
# pages past the new end raises SIGBUS, which gdb passes to the program.
set -euo pipefail
: "${LEAKRAY:?}" "${LEAKRAY_SRC:?}" "${LEAKRAY_BUILD:?}"
command -v gdb >/dev/null || { echo "SKIP: gdb not installed (scripts/deps.sh test)"; exit 77; }
fix=${LEAKRAY_FIXTURES:-$LEAKRAY_SRC/../shared/fixtures}/hprof/sun_jdk6_18_x64.hprof
if [ ! -f "$fix" ]; then
    [ "${CI:-}" = true ] && { echo "FAIL: no fixture $fix (required under CI=true)"; exit 1; }
    echo "SKIP: no fixture $fix"
    exit 77
fi
tmp=$LEAKRAY_BUILD/tmp/shrinking_input
rm -rf "$tmp"
mkdir -p "$tmp"
fail() { echo "FAIL: $*" >&2; exit 1; }
for verb in info analyze top; do
    cp "$fix" "$tmp/d.hprof"
    gdb -q -batch -nx -ex 'set confirm off' -ex 'handle SIGBUS nostop noprint pass' \
        -ex 'break hprof_load' -ex run -ex "shell truncate -s 100000 $tmp/d.hprof" \
        -ex continue --args "$LEAKRAY" "$verb" --no-progress "$tmp/d.hprof" \
        >"$tmp/$verb.out" 2>&1 </dev/null || true
    grep -q '^Breakpoint 1, hprof_load' "$tmp/$verb.out" || fail "$verb: breakpoint not reached"
    grep -q '^\[Inferior 1 (process [0-9]*) exited with code 04\]$' "$tmp/$verb.out" ||
        fail "$verb: not exit 4: $(grep -e Inferior -e signal "$tmp/$verb.out" | head -2)"
    grep -q "^leakray: $tmp/d.hprof: the file became shorter while being read" \
        "$tmp/$verb.out" || fail "$verb: no message naming the file"
    echo "ok: $verb: exit 4 with a message" >&2
done
echo "PASS"
