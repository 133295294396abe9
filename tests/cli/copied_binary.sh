#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# copied_binary.sh: a copy of the leakray binary alone (no rules folder beside it, no source
# tree, no install prefix, no LEAKRAY_RULES_DIR) analyses as the build does: the shipped rules
# files are compiled in as the last place they are looked for. Rules on disk still come first:
# LEAKRAY_RULES_DIR pointing at a broken jdk.rules is that file's error, not the built-in copy.
set -euo pipefail
. "$(dirname "$0")/lib/common.bash"
cli_init copied-binary
cli_fixtures
dump=$(realpath "$FIX/test-dump.hprof")
snap=$(realpath "$FIX/../v8/closures.heapsnapshot")
[ -f "$snap" ] || skip "no V8 fixture"
mkdir -p "$T/bin" "$T/rules"
cp "$LEAKRAY" "$T/bin/leakray"
copy=$T/bin/leakray
cd "$T"

both() { # runs ARGS with the build's binary and with the copy; outputs must be equal
    "$LEAKRAY" "$@" >"$T/want" 2>"$T/want.err" || fail "build: $* failed: $(head -3 "$T/want.err")"
    env -u LEAKRAY_RULES_DIR "$copy" "$@" >"$T/got" 2>"$T/got.err" ||
        fail "copied binary: $* failed: $(head -3 "$T/got.err")"
    cmp -s "$T/want" "$T/got" || fail "copied binary: $* differs: $(diff "$T/want" "$T/got" | head)"
}
both analyze --no-timing "$dump"             # jdk.rules
both analyze --no-timing --json "$dump"
both clusters --no-timing "$snap"            # arkts.rules
both analyze --no-timing --collapse "$dump"  # the categories sets
grep -q 'LEAK' "$T/got" || fail "analyze printed no leak: $(head -5 "$T/got")"

# a readable rules folder still wins over the built-in copy
cp "$LEAKRAY_SRC/rules/jdk.rules" "$T/rules/jdk.rules"
printf 'this is not a rule\n' >>"$T/rules/jdk.rules"
rc=0
LEAKRAY_RULES_DIR=$T/rules "$copy" analyze --no-timing "$dump" >"$T/out" 2>"$T/err" || rc=$?
[ "$rc" = 3 ] || fail "broken jdk.rules in LEAKRAY_RULES_DIR: exit $rc, not 3"
grep -qF "$T/rules/jdk.rules:" "$T/err" || fail "error does not name the folder's file: $(cat "$T/err")"
echo "ok: a copied binary uses its built-in rules"
