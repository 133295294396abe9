#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# gen_dump_cache.sh: the benchmark dump generators (scripts/gen-big-dump.sh,
# gen-huge-dump.sh) reuse a dump written from the same sources and parameters, however old
# its modification time (a fresh checkout makes every source newer than any dump), and write
# it again when the sources or parameters differ. gen-big-dump runs its real JVM at SCALE 0 (a
# small dump with the planted leaks, seconds); gen-huge-dump is only asked for dumps it must
# reuse, with guards set so that a rebuild would stop at once (exit 5) instead of writing GBs.
set -euo pipefail
. "$(dirname "$0")/lib/common.bash"
cli_init gen-dump-cache
cli_need_java
big=$LEAKRAY_SRC/scripts/gen-big-dump.sh
huge=$LEAKRAY_SRC/scripts/gen-huge-dump.sh
out=$T/big.hprof

gen() { # gen SCRIPT ARGS...: runs it, stderr in $T/gen.err; fails unless it prints the path
    local script=$1
    shift
    "$script" "$@" >"$T/gen.out" 2>"$T/gen.err" || fail "$(basename "$script") $*: exit $?"
    [ "$(cat "$T/gen.out")" = "$1" ] || fail "$(basename "$script") $*: printed $(cat "$T/gen.out")"
}
wrote() { grep -q 'writing' "$T/gen.err"; }
ident() { stat -c '%i %Y' "$1"; }

gen "$big" "$out" 0
wrote || fail "first run: no dump written"
[ -s "$out" ] && [ -s "$out.stamp" ] || fail "first run: dump or stamp missing"
grep -q ' BigDump scale 0$' "$out.stamp" || fail "stamp does not name the parameters"
run histo --no-timing "$out"
expect_rc 0
expect_out 'PlantedLeaks\$Listener'

# a checkout newer than the dump: reused, not rewritten
touch -d '2001-01-01' "$out"
before=$(ident "$out")
gen "$big" "$out" 0
if wrote; then fail "a dump older than the sources was written again"; fi
[ "$(ident "$out")" = "$before" ] || fail "the cached dump was replaced"

# other sources (or parameters) than the stamp's: written again
sed -i 's/^[0-9a-f]* /0000 /' "$out.stamp"
gen "$big" "$out" 0
wrote || fail "a dump from other sources was reused"
grep -qv '^0000 ' "$out.stamp" || fail "the stamp was not rewritten"

# a dump from before stamps: reused and stamped
rm "$out.stamp"
before=$(ident "$out")
gen "$big" "$out" "00"
if wrote; then fail "an unstamped dump was written again"; fi
grep -q 'reusing' "$T/gen.err" || fail "adopting an unstamped dump says nothing"
[ "$(ident "$out")" = "$before" ] && [ -s "$out.stamp" ] || fail "the dump was not adopted"

# gen-huge-dump: the same rules (the file stands for a dump; a rebuild would exit 5)
export HUGE_MEM_MARGIN_GIB=100000 HUGE_WAIT_S=0
h=$T/huge.hprof
printf 'JAVA PROFILE 1.0.2\0' >"$h"
touch -d '2001-01-01' "$h"
gen "$huge" "$h" 0.01
grep -q ' HugeDump GiB 0.01$' "$h.stamp" || fail "huge: the unstamped dump was not adopted"
gen "$huge" "$h" 0.010
set +e
"$huge" "$h" 0.02 >/dev/null 2>"$T/gen.err"
rc=$?
set -e
[ "$rc" = 5 ] || fail "huge: another size was not rebuilt (exit $rc, expected the guard's 5)"
[ -s "$h" ] || fail "huge: the guard removed the dump"
echo "ok: generated dumps are reused by content, not by modification time"
