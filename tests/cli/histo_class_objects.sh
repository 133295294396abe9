#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# histo_class_objects.sh: `histo --retained` gives the class objects' row what they retain
# (their statics hold 75 % of the Android dialer's heap), by the per-class rule: it read 0,
# below its own shallow size. On the dialer no class object dominates another, so the row
# equals the sum of the class objects' own retained sizes, which `sql` reads per object;
# with --heap, of those in that heap. --json's total gives the reachable bytes beside the rows'
# (overlapping) sum.
set -euo pipefail
. "$(dirname "$0")/lib/common.bash"
cli_init histo-class-objects
cli_fixtures
D=$FIX/dialer.android-hprof
for heap in "" zygote; do
    run histo --retained --json --class '<class objects>' ${heap:+--heap $heap} "$D"
    expect_rc 0
    got=$(json_get 'd["classes"][0]["retained"]')
    where="kind = 'class'"
    [ -n "$heap" ] && where="$where and heap = '$heap'"
    run sql "$D" "select sum(retained) from objects where $where" --csv
    want=$(tail -1 "$T/out")
    [ "$got" = "$want" ] && [ "$got" -gt 1000000 ] ||
        fail "class objects' row${heap:+ in $heap}: retained $got, sql says $want"
done
# The rows overlap, so their sum passes the heap: --json gives the reachable bytes beside it,
# the heap each row is a part of (a dashboard summing rows read 1.5x the heap as its size).
run histo --retained --json "$D"
got=$(json_get 'd["total"]["reachable"]')
sum=$(json_get 'd["total"]["retained"]')
run sql "$D" "select sum(shallow) from objects where reachable = 1" --csv
want=$(tail -1 "$T/out")
[ "$got" = "$want" ] && [ "$sum" -gt "$got" ] ||
    fail "total: reachable $got (sql $want), rows' sum $sum"
echo "histo_class_objects: ok"
