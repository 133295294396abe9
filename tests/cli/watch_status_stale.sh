#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# watch_status_stale.sh: `leakray watch status PID` trusts the agent's status file only while
# PID runs the agent. A JVM that ended without the VM's death event (-XX:+ExitOnOutOfMemory
# Error, a crash, kill -9) leaves /tmp/leakray-watch-PID.status behind: for a process that is
# gone, or a PID reused by a process without the agent, status says so (exit 2, not_found)
# and removes the stale file, where it printed the last state as a live idle agent.
set -euo pipefail
. "$(dirname "$0")/lib/common.bash"
cli_init watch-status-stale
stale() {
    printf 'pid: %s\nstate: idle\nnext: nothing watched\nretained: 0\n' "$1" \
        >"/tmp/leakray-watch-$1.status"
}
# a process that has ended
sleep 0 &
gone=$!
wait "$gone"
stale "$gone"
run watch status "$gone"
expect_rc 2
expect_err "no process $gone"
[ ! -e "/tmp/leakray-watch-$gone.status" ] || fail "the stale file of $gone is still there"
run watch status --json "$gone"
expect_rc 2
json_eq 'd["error"]["code"]' not_found
# a live process without the agent under that PID
sleep 30 &
other=$!
trap 'kill "$other" 2>/dev/null || true; rm -f "/tmp/leakray-watch-$other.status"' EXIT
stale "$other"
run watch status "$other"
expect_rc 2
expect_err "process $other is not running the leakray agent"
[ ! -e "/tmp/leakray-watch-$other.status" ] || fail "the stale file of $other is still there"
echo "watch_status_stale: ok"
