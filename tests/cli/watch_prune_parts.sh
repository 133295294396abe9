#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# watch_prune_parts.sh: `leakray watch analyze` (what the JVM agent runs after each dump)
# keeps --max-dumps dumps in the folder, and removes the partial dumps of JVMs killed while
# they wrote one (.leakray-STAMP-PID-SEQ.part.hprof, a hidden file up to the heap's size that
# no pruning looked at). A partial dump of a process still running is left alone: it is
# being written. The dumps kept are the newest by when they were written.
set -euo pipefail
. "$(dirname "$0")/lib/common.bash"
cli_init watch-prune-parts
cli_fixtures
dir=$T/dumps
mkdir -p "$dir"
sleep 0 &
gone=$!
wait "$gone"
dead=$dir/.leakray-20260101-000000-$gone-1.part.hprof
live=$dir/.leakray-20260101-000000-$$-1.part.hprof
head -c 4096 "$FIX/test-dump.hprof" >"$dead"
head -c 4096 "$FIX/test-dump.hprof" >"$live"
dump=$dir/leakray-20260101-000001-1-1.hprof
cp "$FIX/test-dump.hprof" "$dump"
run watch analyze "$dump" --no-timing --max-dumps 1
expect_rc 0
[ ! -e "$dead" ] || fail "the partial dump of process $gone (gone) is still there"
[ -e "$live" ] || fail "the partial dump of a running process was removed"
[ -e "$dump" ] || fail "the dump itself was removed"

# The newest dumps are kept by when they were written, not by their names' local time: an
# older dump whose name reads later (another JVM's time zone, summer time) goes first.
old=$dir/leakray-20991231-235959-2-1.hprof
cp "$FIX/test-dump.hprof" "$old"
touch -d '1 hour ago' "$old"
rm -f "$dir"/leakray-20260101-000001-1-1.*
cp "$FIX/test-dump.hprof" "$dump"
run watch analyze "$dump" --no-timing --max-dumps 1
expect_rc 0
[ -e "$dump" ] && [ -e "${dump%.hprof}.txt" ] || fail "the dump just analysed was pruned"
[ ! -e "$old" ] || fail "the older dump (a later name) was kept"
echo "watch_prune_parts: ok"
