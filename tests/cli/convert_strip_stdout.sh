#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# convert_strip_stdout.sh: `convert FILE -o -` and `strip FILE -o -` write the converted or
# stripped dump to stdout, byte for byte what `-o FILE` writes, with nothing else there (no
# "FILE -> OUT" line, not even under --json), and create no file named "-". The stripped
# stream loads as a dump. strip refuses to send a binary dump to a terminal; a failed write
# to stdout is exit 4.
set -euo pipefail
. "$(dirname "$0")/lib/common.bash"
cli_init convert-strip-stdout
cli_fixtures
dump=$(realpath "$FIX/test-dump.hprof")
cd "$T"

no_dash() { [ ! -e "$T/-" ] || fail "$1: wrote a file named '-'"; }

run convert --no-timing "$dump" -o -
expect_rc 0
no_dash "convert -o -"
cp "$T/out" "$T/stdout.heapsnapshot"
run convert --no-timing "$dump" -o "$T/file.heapsnapshot"
expect_rc 0
expect_out 'test-dump.hprof -> .*file.heapsnapshot'
cmp -s "$T/stdout.heapsnapshot" "$T/file.heapsnapshot" ||
    fail "convert -o - differs from the snapshot -o FILE writes"
run convert --no-timing --json "$dump" -o -
expect_rc 0
cmp -s "$T/out" "$T/file.heapsnapshot" || fail "convert --json -o -: stdout holds more"
no_dash "convert --json -o -"
# the stream is a snapshot leakray reads back
run histo --no-timing "$T/stdout.heapsnapshot"
expect_rc 0

run strip --no-timing "$dump" -o -
expect_rc 0
no_dash "strip -o -"
cp "$T/out" "$T/stdout.hprof"
run strip --no-timing --mode shrink "$dump" -o -
expect_rc 0
cp "$T/out" "$T/shrink-stdout.hprof"
run strip --no-timing "$dump" -o "$T/file.hprof"
expect_rc 0
cmp -s "$T/stdout.hprof" "$T/file.hprof" || fail "strip -o - differs from -o FILE"
run strip --no-timing --mode shrink "$dump" -o "$T/shrink.hprof"
cmp -s "$T/shrink-stdout.hprof" "$T/shrink.hprof" || fail "strip --mode shrink -o - differs"
run info --no-timing "$T/stdout.hprof"
expect_rc 0

if [ -w /dev/full ]; then
    for verb in convert strip; do
        set +e
        "$LEAKRAY" $verb --no-timing "$dump" -o - >/dev/full 2>"$T/err"
        RC=$?
        set -e
        expect_rc 4
        expect_err 'No space left'
    done
fi

# a terminal gets no binary dump (script(1) gives the command one)
if command -v script >/dev/null; then
    set +e
    script -qec "\"$LEAKRAY\" strip --no-timing \"$dump\" -o -" /dev/null >"$T/tty" 2>&1
    set -e
    grep -q 'binary dump to the terminal' "$T/tty" || fail "strip -o - on a terminal: $(cat "$T/tty")"
    no_dash "strip -o - on a terminal"
fi

run strip --help
expect_out '^OUT - writes it to stdout'
run convert --help
expect_out '^OUT - writes it to stdout'
# an output name another reader claims (x.hprof) would have held V8 JSON: refused, nothing written
run convert --no-timing "$dump" -o "$T/x.hprof"
expect_rc 2
expect_err 'convert writes a V8 .heapsnapshot or a .jsonl graph, not .hprof'
[ ! -e "$T/x.hprof" ] || fail "convert -o x.hprof wrote the file"
echo "ok: convert and strip -o - write to stdout"
