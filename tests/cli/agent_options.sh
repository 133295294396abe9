#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# agent_options.sh: the JVM agent's options. An unknown or malformed option (on -agentpath or
# through JAVA_TOOL_OPTIONS), or a malformed rules file, stops the JVM before it runs any
# program, with one line naming the option (a rules= folder too); a dump-dir with missing
# parents is made; report=db and store=URL are accepted (an empty store= is not, nor one of a
# scheme no store speaks, pg:leaks); and a program
# using leakray.AppWatcher runs normally without the agent (a no-op: no dump).
set -euo pipefail
: "${LEAKRAY:?}" "${LEAKRAY_SRC:?}" "${LEAKRAY_BUILD:?}"
work="$LEAKRAY_BUILD/tmp/agent_options"
# shellcheck source=../e2e/agent_lib.bash
. "$LEAKRAY_SRC/tests/e2e/agent_lib.bash"
agent_setup
fail() { echo "FAIL: $*" >&2; exit 1; }

refused() { # OPTIONS EXPECTED-LINE [env]
    local rc=0
    java "-agentpath:$agent_so=$1" -version > "$work/out" 2> "$work/err" || rc=$?
    [ "$rc" != 0 ] || fail "'$1' was accepted"
    grep -q 'version' "$work/out" "$work/err" && fail "'$1': the JVM ran"
    [ "$(grep -c '^leakray: ' "$work/err")" = 1 ] || fail "'$1': not one line: $(cat "$work/err")"
    grep -qxF "leakray: $2" "$work/err" || fail "'$1': $(cat "$work/err")"
}
refused bogus=1 "unknown agent option 'bogus=1'"
refused threshold=0 "malformed agent option 'threshold=0'"
refused delay-ms=soon "malformed agent option 'delay-ms=soon'"
refused dump-dir "agent option needs a value 'dump-dir'"
refused watch=java.io.Closeable "agent option expects CLASS#METHOD 'watch=java.io.Closeable'"
refused report=html "malformed agent option 'report=html'"
refused app= "malformed agent option 'app='"
printf 'watch a.B#close\nwatch nothing-here\n' > "$work/bad.rules"
refused "rules=$work/bad.rules" "$work/bad.rules:2: expected CLASS#METHOD, got 'nothing-here'"
# a leakray= that cannot run: every dump would go without a report
refused "leakray=$work/no-such-leakray" "leakray=$work/no-such-leakray: No such file or directory"
# a folder reads as an empty rules file: no rules at all, silently, unless refused
refused "rules=$work" "$work: not a rules file (a directory)"
# a dump-dir whose parents are missing too is made, and report= is read in any case
rm -rf "$work/deep"
java "-agentpath:$agent_so=dump-dir=$work/deep/er/dumps,report=JSON" -version 2>/dev/null ||
    fail "a dump-dir with missing parents refused"
[ -d "$work/deep/er/dumps" ] || fail "dump-dir with missing parents not made"

rc=0
JAVA_TOOL_OPTIONS="-agentpath:$agent_so=threshold=many" java -version > "$work/out" \
    2> "$work/err" || rc=$?
[ "$rc" != 0 ] || fail "JAVA_TOOL_OPTIONS: accepted"
grep -qxF "leakray: malformed agent option 'threshold=many'" "$work/err" ||
    fail "JAVA_TOOL_OPTIONS: $(cat "$work/err")"

java "-agentpath:$agent_so=report=db,dump-dir=$work/db" -version 2> "$work/err" > /dev/null ||
    fail "report=db refused"
! grep -q "not available" "$work/err" || fail "report=db: $(head -3 "$work/err")"
java "-agentpath:$agent_so=store=$work/db/leaks.db,dump-dir=$work/db" -version 2> "$work/err" \
    > /dev/null || fail "store=URL refused"
rc=0
java "-agentpath:$agent_so=store=,dump-dir=$work/db" -version 2> "$work/err" >/dev/null || rc=$?
[ "$rc" != 0 ] && grep -q "store" "$work/err" || fail "an empty store= accepted"
# a store URL of a scheme no store speaks stops the JVM at start (it was refused at the first
# dump); postgres:// and file: URIs are taken
for url in 'pg:leaks' 'postgress://fleet@/leaks'; do
    rc=0
    java "-agentpath:$agent_so=store=$url,dump-dir=$work/db" -version 2> "$work/err" \
        >/dev/null || rc=$?
    [ "$rc" != 0 ] && grep -q "store" "$work/err" || fail "store=$url accepted"
done
java "-agentpath:$agent_so=store=postgres://u@h/leaks,dump-dir=$work/db" -version \
    2> "$work/err" > /dev/null || fail "store=postgres:// refused: $(cat "$work/err")"
java "-agentpath:$agent_so=store=file:$work/db/f.db,dump-dir=$work/db" -version \
    2> "$work/err" > /dev/null || fail "store=file: refused: $(cat "$work/err")"

# without the agent, AppWatcher is a no-op
(cd "$work" && java -cp "$agent_jar:$work/classes" agent.AgentLeaks listeners 5 700) ||
    fail "program without the agent"
if compgen -G "$work/*.hprof" >/dev/null; then fail "a dump without the agent"; fi
echo "agent_options: ok"
