# SPDX-License-Identifier: Apache-2.0
# agent_lib.bash: shared by the JVM agent tests (tests/e2e/agent_*.sh, tests/cli/agent_*.sh)
# and scripts/golden-agent-shark.sh. Needs LEAKRAY_SRC, LEAKRAY_BUILD and a work dir in $work.
# agent_setup     checks java/javac and the built agent, compiles tests/programs/agent
# agent_run DIR MODE N RUN_MS [OPTS] [ARGS...]   runs AgentLeaks under the agent (foreground)
# agent_wait DIR [SECONDS]   waits until DIR holds a finished report (NAME.json and NAME.txt)
# check MODE N OPTS CLASS...  runs a mode, checks its report names exactly CLASS... and equals
#                             Shark's golden for the running JDK (agent_golden)
# agent_golden MODE [BELOW]   the golden of MODE for the running JDK's feature version N: Shark's
#                             analysis differs where the JDK itself does (JDK 25 keeps its
#                             application class loader in no JNI global, so traces start at a
#                             thread), so expected/agent/jdkK/MODE.json of the greatest K <= N
#                             (K < BELOW when given) comes first, else expected/agent/MODE.json,
#                             written on JDK $agent_base_jdk (the JDK CI runs); for the
#                             default collector (JDK 25 under ZGC lists that loader as a JNI
#                             global again: its traces are JDK 17's)
agent_so=$LEAKRAY_BUILD/libleakray_agent.so
agent_jar=$LEAKRAY_BUILD/leakray-watcher.jar
agent_base_jdk=17

agent_setup() {
    if ! command -v javac >/dev/null || ! command -v java >/dev/null ||
        ! command -v python3 >/dev/null; then
        echo "SKIP: javac/java/python3 not installed"
        exit 77
    fi
    if [ ! -f "$agent_so" ] || [ ! -f "$agent_jar" ]; then
        echo "FAIL: $agent_so or $agent_jar not built although a JDK is installed" >&2
        exit 1
    fi
    # the feature version ("25" of 25.0.1; "1.8" would give 1, below every golden)
    jdk_feature=$(java -XshowSettings:properties -version 2>&1 |
        sed -n 's/^ *java\.specification\.version = \([0-9]*\).*/\1/p')
    [ -n "$jdk_feature" ] || { echo "FAIL: cannot tell the JDK's version" >&2; exit 1; }
    rm -rf "$work"
    mkdir -p "$work/classes" "$work/plugin"
    javac -d "$work/classes" -cp "$agent_jar" "$LEAKRAY_SRC"/tests/programs/agent/AgentLeaks.java
    javac -d "$work/plugin" "$LEAKRAY_SRC"/tests/programs/agent/plugin/Plugin.java
}

agent_run() { # DIR MODE N RUN_MS [OPTS] [ARGS...]
    local dir=$1 mode=$2 n=$3 ms=$4 opts=${5:-}
    shift 4
    [ $# -gt 0 ] && shift
    java -Xmx128m "-agentpath:$agent_so=dump-dir=$dir,delay-ms=300,quiet${opts:+,$opts}" \
        -cp "$agent_jar:$work/classes" agent.AgentLeaks "$mode" "$n" "$ms" "$@"
}

agent_wait() { # DIR [SECONDS]
    local dir=$1 secs=${2:-60} i
    for ((i = 0; i < secs * 10; i++)); do
        if compgen -G "$dir/leakray-*.json" >/dev/null && compgen -G "$dir/leakray-*.txt" >/dev/null
        then
            return 0
        fi
        sleep 0.1
    done
    echo "FAIL: no report in $dir after $secs s" >&2
    ls -la "$dir" >&2 || true
    return 1
}

exp="$LEAKRAY_SRC/tests/e2e/expected/agent"
fail() { echo "FAIL: $*" >&2; exit 1; }

agent_golden() { # MODE [BELOW]
    local mode=$1 below=${2:-$((jdk_feature + 1))} k
    for ((k = below - 1; k > agent_base_jdk; k--)); do
        if [ -f "$exp/jdk$k/$mode.json" ]; then
            echo "$exp/jdk$k/$mode.json"
            return
        fi
    done
    echo "$exp/$mode.json"
}

check() { # MODE N OPTS CLASSES...: run, wait, check the report and the Shark golden
    local mode=$1 n=$2 opts=$3
    shift 3
    agent_run "$work/$mode" "$mode" "$n" 1500 "$opts" "$work/plugin"
    agent_wait "$work/$mode"
    local json
    json=$(ls "$work/$mode"/leakray-*.json)
    python3 - "$json" "$mode" "$@" <<'PY' || fail "$mode: report does not name exactly the leaks"
import json, sys
d = json.load(open(sys.argv[1]))
mode, want = sys.argv[2], sorted(sys.argv[3:])
got = sorted(t["class"] for t in d["traces"])
assert got == want, (mode, got, want)
assert all(t["source"] == "watched" for t in d["traces"]), mode
# objects a watched close() closes on its way (a class loader's jar loaders) are watched too;
# reachable only through the leak, they are reported on it as "Also retains", not as traces
assert d["leaking_objects"] == len(want) + d["also_retained"], mode
assert d["unreachable_objects"] == [], mode
assert len(d["application_leaks"]) >= 1 and d["library_leaks"] == [], mode
print("%s: %d leaks named: %s" % (mode, len(got), ", ".join(sorted(set(got)))))
PY
    python3 "$LEAKRAY_SRC/tests/e2e/shark_parity.py" norm-leakray "$json" > "$work/$mode.canon"
    python3 "$LEAKRAY_SRC/tests/e2e/agent_golden.py" compare "$(agent_golden "$mode")" \
        "$work/$mode.canon" || fail "$mode: leakray differs from Shark's golden (JDK $jdk_feature)"
}

