#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# watch_prune_parts.sh: `leakray watch analyze` (what the JVM agent runs after each dump)
# keeps --max-dumps dumps in the folder, and removes the partial dumps of JVMs killed while
# they wrote one (.leakray-STAMP-PID-SEQ.part.hprof, a hidden file up to the heap's size that
# no pruning looked at). A partial dump of a process still running is left alone: it is
# being written. The dumps kept are the newest by when they were written; a dump being
# analysed stays, and reports whose dump is gone go.
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
# The dump analysed is the newest whatever its time (a copy that kept an old time was
# deleted with the reports just written of it), and a --max-dumps past 2^32 keeps all (it
# wrapped to 0: every dump deleted).
rm -f "$dir"/leakray-*
for n in 1 2 3; do
    cp "$FIX/test-dump.hprof" "$dir/leakray-2026010$n-000000-1-1.hprof"
    touch -d "2026-01-0$n" "$dir/leakray-2026010$n-000000-1-1.hprof"
done
mid=$dir/leakray-20260102-000000-1-1.hprof
run watch analyze "$mid" --no-timing --max-dumps 1
expect_rc 0
[ -e "$mid" ] && [ -e "${mid%.hprof}.txt" ] && [ -e "${mid%.hprof}.json" ] ||
    fail "the older dump analysed, or its reports, pruned: $(ls "$dir")"
[ "$(ls "$dir"/leakray-*.hprof | wc -l)" = 1 ] || fail "--max-dumps 1 kept: $(ls "$dir")"
for n in 4 5; do
    cp "$FIX/test-dump.hprof" "$dir/leakray-2026010$n-000000-1-1.hprof"
done
run watch analyze "$dir/leakray-20260105-000000-1-1.hprof" --no-timing --max-dumps 4294967296
expect_rc 0
[ "$(ls "$dir"/leakray-*.hprof | wc -l)" = 3 ] || fail "--max-dumps 2^32 kept: $(ls "$dir")"
# A dump being analysed (its NAME.json.part there, young) is not pruned: another JVM sharing
# the folder, or this JVM's next dump, deleted it under its analyser, whose reports then lay
# beside no dump for good. Reports left of a dump that is gone are removed; a .json.part a
# day old is an analyser that was killed: its dump goes as any other.
rm -f "$dir"/leakray-*
busy=$dir/leakray-20260106-000000-7-1.hprof
stale=$dir/leakray-20260106-000000-8-1.hprof
cp "$FIX/test-dump.hprof" "$busy"
cp "$FIX/test-dump.hprof" "$stale"
touch -d '2 hours ago' "$busy" "$stale"
: >"${busy%.hprof}.json.part"
: >"${stale%.hprof}.json.part"
touch -d '2 days ago' "${stale%.hprof}.json.part"
echo '{}' >"$dir/leakray-20260105-000000-9-1.json"   # its dump is gone
: >"$dir/leakray-20260105-000000-9-1.txt.part"
new=$dir/leakray-20260107-000000-7-2.hprof
cp "$FIX/test-dump.hprof" "$new"
run watch analyze "$new" --no-timing --max-dumps 1
expect_rc 0
[ -e "$busy" ] || fail "a dump being analysed was pruned: $(ls "$dir")"
[ ! -e "$stale" ] && [ ! -e "${stale%.hprof}.json.part" ] ||
    fail "a dump whose analyser is long gone was kept: $(ls "$dir")"
[ ! -e "$dir/leakray-20260105-000000-9-1.json" ] &&
    [ ! -e "$dir/leakray-20260105-000000-9-1.txt.part" ] ||
    fail "reports of a dump that is gone were kept: $(ls "$dir")"
[ -e "$new" ] && [ -e "${new%.hprof}.json" ] || fail "the dump analysed: $(ls "$dir")"
echo "watch_prune_parts: ok"
