# SPDX-License-Identifier: Apache-2.0
# agent_lib.bash: shared by the JVM agent tests (tests/e2e/agent_*.sh, tests/cli/agent_*.sh)
# and scripts/golden-agent-shark.sh. Needs LEAKRAY_SRC, LEAKRAY_BUILD and a work dir in $work.
# agent_setup     checks java/javac and the built agent, compiles tests/programs/agent
# agent_run DIR MODE N RUN_MS [OPTS] [ARGS...]   runs AgentLeaks under the agent (foreground)
# agent_wait DIR [SECONDS]   waits until DIR holds a finished report (NAME.json and NAME.txt)
agent_so=$LEAKRAY_BUILD/libleakray_agent.so
agent_jar=$LEAKRAY_BUILD/leakray-watcher.jar

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
