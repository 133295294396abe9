#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# agent_load_hooks.sh: classes loaded after the JVM agent started that take no stamp field (the
# JDK's own, an application interface whose default close() is the watched method) get the
# watch hook as they are loaded, with no retransformation. A JVM closes 100,000 StringReaders
# it drops, keeps 2 StringReaders, 1 PipedInputStream and 2 objects whose close() is an
# interface's default method after closing them, then, once the agent's thread has
# retransformed the JDK classes loaded before the agent (status key retransforms), 1
# FileInputStream, one of those, and 1 ZipFile of the class path's jar (the launcher loads
# ZipFile before the application's first class, while the load hook is off: the same
# retransformation hooks it); and keeps 3 java.util.logging.StreamHandlers after close()
# (a close() of its own, no Closeable: hooked at load, never watched). It runs with
# -XX:+BytecodeVerificationLocal, so the JDK classes hooked at load are verified too. The
# report must name exactly the 7 leaks with LeakCanary's description (on JDKs whose
# StringReader wraps a reader it closes too, those 2 readers are counted as also retained),
# and the status must show one or two retransformations (the classes loaded before the
# agent) and call slots.
# Then the same with a second (java.lang.instrument) agent retransforming StringReader and
# the interface first: their hooks must survive it.
set -euo pipefail
: "${LEAKRAY:?}" "${LEAKRAY_SRC:?}" "${LEAKRAY_BUILD:?}"
work="$LEAKRAY_BUILD/tmp/agent_load_hooks"
# shellcheck source=agent_lib.bash
. "$LEAKRAY_SRC/tests/e2e/agent_lib.bash"
agent_setup
javac -d "$work/classes" "$LEAKRAY_SRC/tests/programs/agent/LoadHookLeaks.java" \
    "$LEAKRAY_SRC/tests/programs/agent/Retransformer.java"
printf 'Premain-Class: agent.Retransformer\nCan-Retransform-Classes: true\n' > "$work/manifest"
(cd "$work/classes" && jar cfm "$work/retransformer.jar" "$work/manifest" \
    agent/Retransformer.class)

# does this JDK's StringReader wrap another reader (see the report's check below)?
wraps=no
javap -p java.io.StringReader | grep -q ' java.io.Reader r;' && wraps=wraps

for how in plain retransform; do
    extra=()
    [ "$how" = retransform ] && extra=("-javaagent:$work/retransformer.jar" )
    java -Xmx128m -XX:+UnlockDiagnosticVMOptions -XX:+BytecodeVerificationLocal \
        "-agentpath:$agent_so=dump-dir=$work/$how,delay-ms=300,quiet" "${extra[@]}" \
        -cp "$agent_jar:$work/classes" agent.LoadHookLeaks 100000 4000 \
        $([ "$how" = retransform ] && echo retransform) > "$work/status" 2> "$work/err" ||
        fail "$how: the JVM failed: $(cat "$work/err")"
    [ -s "$work/err" ] && fail "$how: the JVM printed errors: $(cat "$work/err")"
    agent_wait "$work/$how"
    json=$(ls "$work/$how"/leakray-*.json)
    python3 - "$json" "$work/status" "$how" "$wraps" <<'PY' || fail "$how: wrong report or status"
import json, sys
d = json.load(open(sys.argv[1]))
st = dict(l.split(": ", 1) for l in open(sys.argv[2]).read().splitlines() if ": " in l)
R = "agent.LoadHookLeaks$Res"
got = sorted(t["class"] for t in d["traces"])
want = sorted(["java.io.StringReader"] * 2 + ["java.io.PipedInputStream", R, R,
              "java.io.FileInputStream", "java.util.zip.ZipFile"])
assert got == want, (got, want)
# newer JDKs (24+): a StringReader wraps a reader of Reader.of(CharSequence) and its close()
# closes that one too, so it is watched as well; reachable only through its StringReader, it
# is counted as also retained (one per kept StringReader), not as a leak of its own
assert d["also_retained"] == (2 if sys.argv[4] == "wraps" else 0), d["also_retained"]
assert d["leaking_objects"] == 7 + d["also_retained"], d["leaking_objects"]
assert d["unreachable_objects"] == [], d["unreachable_objects"]
for t in d["traces"]:
    why = "because %s received java.io.Closeable#close() callback" % t["class"]
    assert t["source"] == "watched" and why in t["elements"][-1]["reason"], t["elements"][-1]
# the JDK's Closeables loaded before the agent: one retransformation (two when one of them
# was loaded but not yet prepared then); none for the classes loaded later (one each before)
assert 1 <= int(st["retransforms"]) <= 2, st
assert int(st["call_slots"]) >= 3, st
assert int(st["dumps"]) == 1, st
print("load hooks (%s): 7 leaks named (%s), %s call slots, %s retransformation, %s watched"
      % (sys.argv[3], ", ".join(sorted(set(got))), st["call_slots"], st["retransforms"],
         st["total_watched"]))
PY
done
echo "agent_load_hooks: ok"
