#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# agent_no_pin.sh: the agent keeps no application class alive. tests/programs/agent/Unload.java
# loads a Closeable plugin class twelve times, each in a loader of its own, closes and drops
# them, and dumps its heap; under the agent (loaded at start, so the `Closeable#close` rule
# hooks the plugin class as it loads) the dump must hold no plugin class, as without it.
# The agent made each class's module read its hook's and remembered the module in a JNI
# global: an unnamed module, a loader's, so 7 of 12 loaders, their classes and their 1 MB
# statics stayed for the JVM's life, and a clean undeploy read as a leak through the agent's
# own reference ("Global variable in native code -> Module.loader").
set -euo pipefail
: "${LEAKRAY:?}" "${LEAKRAY_SRC:?}" "${LEAKRAY_BUILD:?}"
work="$LEAKRAY_BUILD/tmp/agent_no_pin"
. "$LEAKRAY_SRC/tests/e2e/agent_lib.bash"
agent_setup
fail() { echo "FAIL: $*" >&2; exit 1; }
mkdir -p "$work/closeplug" "$work/reports"
javac -d "$work/closeplug" "$LEAKRAY_SRC/tests/programs/agent/closeplug/Closing.java"
javac -d "$work/classes" "$LEAKRAY_SRC/tests/programs/agent/Unload.java"

count() { # DUMP: Closing classes in it
    "$LEAKRAY" sql "$1" "SELECT count(*) FROM classes WHERE name = 'closeplug.Closing'" |
        tail -n 1 | tr -d '\r'
}
java -Xmx256m -cp "$work/classes" agent.Unload "$work/closeplug" 12 "$work/none.hprof"
[ "$(count "$work/none.hprof")" = 0 ] || fail "without the agent: a Closing class stays"
java -Xmx256m "-agentpath:$agent_so=dump-dir=$work/reports,threshold=100,quiet" \
    -cp "$agent_jar:$work/classes" agent.Unload "$work/closeplug" 12 "$work/agent.hprof"
n=$(count "$work/agent.hprof")
[ "$n" = 0 ] || fail "under the agent: $n of 12 Closing classes (and their loaders) stay"
echo "agent_no_pin: ok (no plugin class left, with or without the agent)"
