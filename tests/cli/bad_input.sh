#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# bad_input.sh: garbage and truncated dumps exit 3 with one message naming the file and the
# byte offset; under --json the error object carries the same code, exit and a numeric offset.
set -euo pipefail
. "$(dirname "$0")/lib/common.bash"
cli_init bad

# Not a heap dump at all.
printf 'this is not a heap dump, just some text\n%.0s' 1 2 3 >"$T/garbage.hprof"
run info "$T/garbage.hprof"
expect_rc 3
expect_err "^leakray: .*garbage\.hprof: offset 0x0: "
[ "$(wc -l <"$T/err")" = 1 ] || fail "expected exactly one error line"

# A real header followed by a record whose length runs past the end of the file.
{
    printf 'JAVA PROFILE 1.0.2\0'
    printf '\0\0\0\x08'                 # id size 8
    printf '\0\0\0\0\0\0\0\0'           # timestamp
    printf '\x01\0\0\0\0\0\0\x10\0'     # STRING record claiming 0x1000 bytes
    printf 'abcdefgh'
} >"$T/trunc.hprof"
run histo "$T/trunc.hprof"
expect_rc 3
expect_err "^leakray: .*trunc\.hprof: offset 0x[0-9a-f]+"

run histo --json "$T/trunc.hprof"
expect_rc 3
json_eq 'd["error"]["code"] in ("format", "truncated")' true
json_eq 'd["error"]["exit"]' 3
json_eq 'isinstance(d["error"]["offset"], int) and 0 <= d["error"]["offset"] <= 40' true
json_eq '"trunc.hprof" in d["error"]["message"]' true

# A real fixture cut in half: still exit 3, never a crash.
cli_fixtures
head -c 1500000 "$FIX/sun_jdk6_18_x64.hprof" >"$T/half.hprof"
for v in info histo; do
    run "$v" "$T/half.hprof"
    expect_rc 3
    expect_err "half\.hprof: offset 0x"
done

# Two V8 snapshots written one after another into one file: refused where the second starts
# (reading the first alone would drop the other unseen); trailing bytes of another kind stay
# accepted, as DevTools accepts them.
V8=$FIX/../v8/heap-1.heapsnapshot
if [ -f "$V8" ]; then
    size=$(wc -c <"$V8")
    { cat "$V8"; printf '\n'; cat "$V8"; } >"$T/two.heapsnapshot"
    run info --json "$T/two.heapsnapshot"
    expect_rc 3
    json_eq 'd["error"]["offset"]' $((size + 1))
    json_eq '"a second snapshot starts here" in d["error"]["message"]' true
    { cat "$V8"; printf '\n\0garbage'; } >"$T/tail.heapsnapshot"
    run info "$T/tail.heapsnapshot"
    expect_rc 0
fi
echo "bad_input: ok"
