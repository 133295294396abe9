#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# max_memory.sh: --max-memory bounds what leakray allocates. On a real JVM dump (CliTarget),
# with --no-spill (large arrays past the limit would otherwise spill to files: spill.sh):
#   - a limit below what loading needs: exit 5, one line naming the phase, the bytes asked
#     for and in use, and the limit; never a crash or a signal;
#   - limits bisected down to the smallest analyze fits in: below it always exit 5 with the
#     message naming the phase, at it the unlimited output;
#   - the same under --json: the error object with code "limit", exit 5;
#   - a generous limit: exit 0 and the same output as without it;
#   - a bad value: usage error;
#   - what the libraries allocate counts as well (SQLite's values: exit 5 past the limit).
# Under AddressSanitizer the sanitizer owns the allocator and nothing is counted: only the
# generous-limit and usage cases run there.
set -euo pipefail
. "$(dirname "$0")/lib/common.bash"
cli_init max-memory
cli_target_dump

run analyze --no-progress --no-timing "$DUMP"
expect_rc 0
cp "$T/out" "$T/plain"
run analyze --no-progress --no-timing --max-memory 4G "$DUMP"
expect_rc 0
diff -u "$T/plain" "$T/out" >/dev/null || fail "output with a generous --max-memory differs"
run analyze --max-memory 12Q "$DUMP"
expect_rc 2
expect_err "invalid value '12Q' for --max-memory"

if [[ $(ldd "$LEAKRAY" 2>/dev/null) == *libasan* ]]; then
    echo "max_memory: ok (limits not enforced under AddressSanitizer)"
    exit 0
fi
phase_re='memory limit: phase "[a-z0-9 ]+" needed [0-9.]+ [kMG]?B more with [0-9.]+ [kMG]?B in use'
: >"$T/phases"
for lim in 64K 1M; do
    run analyze --no-progress --no-spill --max-memory $lim "$DUMP"
    expect_rc 5
    expect_err "^leakray: $phase_re .* over --max-memory "
    [ "$(wc -l <"$T/err")" = 1 ] || fail "--max-memory $lim: more than one line on stderr"
    sed -n 's/.*phase "\([^"]*\)".*/\1/p' "$T/err" >>"$T/phases"
done
# The smallest limit analyze fits in (bisection, 16 KB steps): every limit below it stops
# cleanly with the message, the limit itself gives the unlimited output; the refusals (the
# small limits above and those on the way) each name a phase.
lo=1024 hi=$((64 * 1024)) # KB: lo fails, hi passes
run analyze --no-progress --no-timing --no-spill --max-memory ${hi}K "$DUMP"
expect_rc 0
while [ $((hi - lo)) -gt 16 ]; do
    mid=$(((lo + hi) / 2))
    run analyze --no-progress --no-timing --no-spill --max-memory ${mid}K "$DUMP"
    if [ "$RC" = 0 ]; then
        hi=$mid
        diff -u "$T/plain" "$T/out" >/dev/null || fail "output under --max-memory ${mid}K differs"
    else
        expect_rc 5
        expect_err "^leakray: $phase_re"
        lo=$mid
        sed -n 's/.*phase "\([^"]*\)".*/\1/p' "$T/err" >>"$T/phases"
    fi
done
run analyze --no-progress --no-timing --no-spill --max-memory ${lo}K "$DUMP"
expect_rc 5
phases=$(sort -u "$T/phases" | tr '\n' ',')
[ "$(wc -l <"$T/phases")" -ge 2 ] && ! grep -qv '^[a-z0-9 ]\+$' "$T/phases" ||
    fail "refusals without a phase: $phases"
echo "ok: analyze fits in ${hi} KB, not in ${lo} KB; phases met: $phases" >&2
run analyze --json --no-spill --max-memory 1M "$DUMP"
expect_rc 5
json_eq 'd["error"]["code"]' limit
json_eq 'd["error"]["exit"]' 5
# The libraries' allocations count too: SQLite building a 300 MB value under a 100 MB limit
run sql --no-spill --max-memory 100M "$DUMP" "SELECT length(randomblob(300000000))"
expect_rc 5
expect_err '^leakray: memory limit: phase "sql" needed'
run sql --no-spill --max-memory 1G "$DUMP" "SELECT length(randomblob(300000000))"
expect_rc 0
# a refusal the run recovered from (a gzip dump's pass 2 at 3 MB) exits 5 after a whole
# document, which says why in its warnings (it looked like a clean result)
G=${LEAKRAY_FIXTURES:-$LEAKRAY_SRC/../shared/fixtures}/hprof/openjdk_jdk11_04_x64.hprof.gz
if [ -f "$G" ]; then
    run top "$G" --json --no-timing --top 5 --max-memory 3M
    if [ "$RC" = 5 ] && json_get '"rows" in d or "objects" in d or "top" in d' >/dev/null &&
        ! grep -q '"error"' "$T/out"; then
        json_eq 'any(w.startswith("memory limit: ") for w in d["warnings"])' true
    fi
fi
echo "max_memory: ok"
