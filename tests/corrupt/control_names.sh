#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# control_names.sh: a dump whose class name holds an escape sequence and a newline
# (tests/corrupt/handmade/valid-control-name.hprof, from make_handmade.py) must not reach the
# terminal with them: histo prints the name with each control character as '?', in text and
# in JSON, and no ESC byte appears anywhere in the output.
set -euo pipefail
: "${LEAKRAY:?}" "${LEAKRAY_SRC:?}" "${LEAKRAY_BUILD:?}"
f=$LEAKRAY_SRC/tests/corrupt/handmade/valid-control-name.hprof
tmp=$LEAKRAY_BUILD/tmp/control_names
mkdir -p "$tmp"
"$LEAKRAY" histo --no-progress "$f" >"$tmp/text" 2>"$tmp/err"
"$LEAKRAY" histo --no-progress --json "$f" >"$tmp/json" 2>>"$tmp/err"
fail=0
if LC_ALL=C grep -q $'\x1b' "$tmp/text" "$tmp/json" "$tmp/err"; then
    echo "FAIL: an ESC byte from the dump reached the output"
    fail=1
fi
if ! grep -qF '3             96  Fo?[31mo?Bar' "$tmp/text"; then
    echo "FAIL: text histo lacks the sanitised name with its 3 instances:"
    cat "$tmp/text"
    fail=1
fi
if ! grep -qF '"name": "Fo?[31mo?Bar"' "$tmp/json"; then
    echo "FAIL: JSON histo lacks the sanitised name:"
    cat "$tmp/json"
    fail=1
fi
[ "$fail" = 0 ] && echo "PASS: control characters in names are printed as '?'"
exit "$fail"
