#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# native_hostile.sh: a saved native scan is untrusted input, and so are the file names it
# lists. Names holding terminal control sequences (the executable, a capture error, a mapped
# file's name) print escaped in the text report and stay exact in --json; mapped "files" that
# are a FIFO or a device are not opened to look for symbols (a FIFO would block the report
# forever), their frames keep module+offset. A trace given twice is refused.
set -euo pipefail
. "$(dirname "$0")/lib/common.bash"
cli_init native_hostile

mkfifo "$T/pipe"
esc=$'\e'
{
    printf 'leakray-native 2\npid 7\n'
    printf 'exe /tmp/a%s]0;title\a%s[31mred\nreason exit\n' "$esc" "$esc"
    printf 'capture partial 3 1 ptrace: %s[2Jno\n' "$esc"
    printf 'backtrace fp 16 0\nheap 2 64\n'
    printf 'map 0x1000 0x2000 r-xp 0x0 %s\n' "$T/pipe"
    printf 'map 0x3000 0x4000 r-xp 0x0 /dev/zero\n'
    printf 'map 0x5000 0x6000 r-xp 0x0 /nonexistent/lib%s[5mx.so\n' "$esc"
    printf 'trace 1 0x1100 0x3200 0x5300\n'
    printf 'leak direct 1 2 64 0x9000 1b5b33316d\n'
    printf 'end\n'
} >"$T/hostile.lrn"

# timeout: the report must not wait on the FIFO
set +e
timeout 30 "$LEAKRAY" native report "$T/hostile.lrn" --no-timing >"$T/out" 2>"$T/err"
RC=$?
set -e
expect_rc 0
if grep -q "$esc" "$T/out"; then
    fail "an escape character reached the terminal text"
fi
expect_out '^leakray native: pid 7 \(/tmp/a\\x1b\]0;title\\x07\\x1b\[31mred\), scan on exit$'
expect_out 'NOT captured \(ptrace: \\x1b\[2Jno\)'
expect_out '#0 0x1100 in \?\? \(pipe\+0x100\)$'
expect_out '#1 0x3200 in \?\? \(zero\+0x200\)$'
expect_out '#2 0x5300 in \?\? \(lib\\x1b\[5mx\.so\+0x300\)$'
# the block's first bytes print as dots where they are not printable
expect_out '1b 5b 33 31 6d  \|\.\[31m\|$'

set +e
timeout 30 "$LEAKRAY" native report "$T/hostile.lrn" --json --no-timing >"$T/out" 2>"$T/err"
RC=$?
set -e
expect_rc 0
json_eq 'd["exe"] == "/tmp/a\x1b]0;title\x07\x1b[31mred"' true
json_eq 'd["groups"][0]["frames"][2]["module"] == "lib\x1b[5mx.so"' true
# one trace given twice: which stack a leak showed depended on a sort (refused, exit 3)
{
    printf 'leakray-native 2\npid 7\nexe /tmp/a\nreason exit\ncapture ok 2 0\n'
    printf 'backtrace fp 16 0\nheap 2 64\nmap 0x1000 0x2000 r-xp 0x0 /tmp/a\n'
    printf 'trace 1 0x1100\ntrace 1 0x1200\nleak direct 1 2 64 0x9000 -\nend\n'
} >"$T/dup.lrn"
run native report "$T/dup.lrn" --no-timing
expect_rc 3
expect_err 'trace 1 is given twice'
echo "native_hostile: control characters escaped, FIFOs and devices not opened"
