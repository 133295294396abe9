#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# shrinking_input.sh: a dump that becomes shorter while leakray reads it (rewritten in place by
# another process) ends with exit 4 and one line naming the file, never a bare SIGBUS. The
# cut is made at a fixed point, deterministically: gdb stops leakray once the file is mapped
# (at the HPROF reader's entry), truncates the file to 100 kB, and lets it run on; reading the
# pages past the new end raises SIGBUS, which gdb passes to the program. A cut inside a page
# leaves zeros up to that page's end: the reader's error on them says the same.
set -euo pipefail
: "${LEAKRAY:?}" "${LEAKRAY_SRC:?}" "${LEAKRAY_BUILD:?}"
command -v gdb >/dev/null || { echo "SKIP: gdb not installed (scripts/deps.sh test)"; exit 77; }
fix=${LEAKRAY_FIXTURES:-$LEAKRAY_SRC/../shared/fixtures}/hprof/sun_jdk6_18_x64.hprof
if [ ! -f "$fix" ]; then
    [ "${CI:-}" = true ] && { echo "FAIL: no fixture $fix (required under CI=true)"; exit 1; }
    echo "SKIP: no fixture $fix"
    exit 77
fi
# LeakSanitizer cannot run under ptrace: a run that exits normally (not by the SIGBUS
# handler's _exit) would end in its "fatal error", exit 1, in the sanitizer build
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
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
# Cut inside a page (2,000,001 bytes, within the heap dump record): the rest of that page
# reads as zeros, not SIGBUS, and the reader met a zero tag there: "unknown heap dump
# sub-record tag 0x00", exit 3, a good dump called malformed. strip writes its output into a
# temporary beside it; a SIGBUS (the 100 kB cut) left that temporary behind.
for cut in 2000001 100000; do
    for verb in info strip; do
        cp "$fix" "$tmp/d.hprof"
        rm -rf "$tmp/out"
        mkdir -p "$tmp/out"
        extra=()
        at=hprof_load
        # strip is cut once it writes (its first write of the record past the header): the
        # temporary output exists then
        [ $verb = strip ] && extra=(-o "$tmp/out/s.hprof") && [ $cut = 100000 ] &&
            at=outfile_write_slow
        gdb -q -batch -nx -ex 'set confirm off' -ex 'handle SIGBUS nostop noprint pass' \
            -ex "break $at" -ex run -ex "shell truncate -s $cut $tmp/d.hprof" -ex delete \
            -ex continue --args "$LEAKRAY" "$verb" --no-progress "$tmp/d.hprof" "${extra[@]}" \
            >"$tmp/$verb.out" 2>&1 </dev/null || true
        grep -q "^Breakpoint 1, $at" "$tmp/$verb.out" || fail "$verb: breakpoint $at not reached"
        grep -q '^\[Inferior 1 (process [0-9]*) exited with code 04\]$' "$tmp/$verb.out" ||
            fail "$verb, cut at $cut: not exit 4: $(grep -e Inferior -e 'leakray:' "$tmp/$verb.out")"
        grep -q "^leakray: $tmp/d.hprof: the file became shorter while being read" \
            "$tmp/$verb.out" || fail "$verb, cut at $cut: no message naming the file"
        [ -z "$(ls -A "$tmp/out")" ] || fail "$verb, cut at $cut: left $(ls -A "$tmp/out")"
        echo "ok: $verb, cut at $cut: exit 4 with a message, no output left" >&2
    done
done
echo "PASS"
