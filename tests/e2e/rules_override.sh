#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# rules_override.sh: a user's rule on the reference a shipped rule names decides
# (tests/programs/rules/MainLocal.java: a watched Screen held only by the main thread's
# local, which jdk.rules ignore): `library-leak java-local "main"` in a --rules file makes
# it a library leak; the shipped `ignore` read first had won, the Screen unreachable.
set -euo pipefail
: "${LEAKRAY:?}" "${LEAKRAY_SRC:?}" "${LEAKRAY_BUILD:?}"
. "$LEAKRAY_SRC/tests/e2e/need_lib.bash"
need_tools javac java
work="$LEAKRAY_BUILD/tmp/rules_override"
rm -rf "$work"
mkdir -p "$work/classes"
fail() { echo "FAIL: $*" >&2; exit 1; }
javac -d "$work/classes" "$LEAKRAY_SRC/tests/programs/rules/MainLocal.java"
java -Xmx64m -cp "$work/classes" MainLocal "$work/m.hprof" >/dev/null
"$LEAKRAY" analyze --no-timing --watch 'MainLocal$Screen' "$work/m.hprof" >"$work/shipped.txt"
grep -q '^0 LIBRARY LEAKS' "$work/shipped.txt" || fail "shipped rules: $(grep LEAKS "$work/shipped.txt")"
printf 'library-leak java-local "main" description "held by main"\n' >"$work/main.rules"
"$LEAKRAY" analyze --no-timing --watch 'MainLocal$Screen' --rules "$work/main.rules" \
    "$work/m.hprof" >"$work/user.txt"
grep -q '^1 LIBRARY LEAKS' "$work/user.txt" && grep -q 'held by main' "$work/user.txt" ||
    fail "the user's rule: $(grep -E 'LEAKS|OBJECTS' "$work/user.txt")"
echo "rules_override: ok"
