#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# native_cli.sh: the contracts of `leakray native` that need no running program: usage
# errors (exit 2), a report that is not one, a truncated one and a hostile one (exit 3 with
# the byte offset, in text and in JSON), a missing file (exit 4), and the committed
# reports of the fuzz corpus rendering in text and JSON (totals under direct/indirect); and
# `native run --json`'s stdout holding the JSON document alone.
set -euo pipefail
. "$(dirname "$0")/lib/common.bash"
cli_init native_cli
C=$LEAKRAY_SRC/tests/fuzz/corpus/nscan_parse

run native
expect_rc 2
run native frobnicate
expect_rc 2
expect_err "unknown command 'frobnicate'"
run native run --frobnicate -- true
expect_rc 2
expect_err "unknown option '--frobnicate'"
run native run
expect_rc 2
expect_err "missing -- PROGRAM"
run native check notapid
expect_rc 2
run native report "$T/none.lrn" --json
expect_rc 4
json_eq 'd["error"]["code"]' io

printf 'not a report\n' >"$T/garbage.lrn"
run native report "$T/garbage.lrn"
expect_rc 3
expect_err "garbage\.lrn: offset 0x0: not a leakray native scan report"
run native report "$C/truncated.lrn" --json
expect_rc 3
json_eq 'd["error"]["code"] in ("truncated", "format") and isinstance(d["error"]["offset"], int)' \
    true
# A number too long for 64 bits, on line 3.
printf 'leakray-native 1\npid 1\nheap 99999999999999999999999 1\nend\n' >"$T/hostile.lrn"
run native report "$T/hostile.lrn"
expect_rc 3
expect_err "hostile\.lrn: offset 0x17: bad 'heap' line"

run native report "$C/threads.lrn" --no-timing
expect_rc 0
expect_out "^Direct leak of 1,280 byte\(s\) in 20 block\(s\)"
expect_out "^SUMMARY: 1,280 byte\(s\) leaked in 20 block\(s\)"
run native report "$C/list-graph.lrn" --json --no-timing --fail-on-leak
expect_rc 1
json_eq 'd["direct"] == {"blocks": 1, "bytes": 32} and d["indirect"] == {"blocks": 9, "bytes": 288}' \
    true
json_eq 'list(d)[:4] == ["schema_version", "direct", "indirect", "groups"]' true
# `native run --json`: stdout is the one JSON document, the program's own output goes to
# stderr; a program that cannot run is said once
run native run --json --no-timing -- /bin/echo from-the-program
expect_rc 0
json_eq 'd["direct"]["blocks"]' 0
expect_err '^from-the-program$'
run native run -- "$T/no-such-program"
expect_rc 2
[ "$(grep -c 'cannot run' "$T/err")" = 1 ] || fail "a program that cannot run is said more than once"
# a scan signal no handler can take would kill or stop the program at the first check
for sig in 9 19 99; do
    run native run --signal $sig -- true
    expect_rc 2
    expect_err "a signal a handler can take"
done
run native check --signal --signo 9 1
expect_rc 2
# a static executable loads no preloaded library: said before it runs (it ran, and the run
# ended in "wrote no scan report (exit scan off, _exit, or killed)"); a program that exec'd
# another (a wrapper script) is named as a likely cause, and a killed one by its signal
if printf 'int main(void){return 3;}\n' >"$T/st.c" &&
    gcc -static -o "$T/static_bin" "$T/st.c" 2>/dev/null; then
    run native run -- "$T/static_bin"
    expect_rc 2
    expect_err "is a static executable"
fi
printf '#!/bin/sh\nexec true\n' >"$T/wrap.sh"
chmod +x "$T/wrap.sh"
run native run -- "$T/wrap.sh"
expect_rc 4
expect_err "exec'd another program"
printf '#!/bin/sh\nkill -9 $$\n' >"$T/killed.sh"
chmod +x "$T/killed.sh"
run native run -- "$T/killed.sh"
expect_rc 4
expect_err "killed by signal 9"
echo "native_cli: usage, bad input, missing file and rendering contracts hold"
