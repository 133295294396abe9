#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# store_trend_apps.sh: `store trend` calls a leak fixed only where the app it was seen in has
# data and it is gone. A fleet's services are dumped on different days and their versions
# are numbered apart: a day (or a version) of another app's dumps read every leak of the
# first app as fixed, and the next day of that app as recurring.
#   day 1: dialer (its leak); day 2: svc (a leak of its own); day 3: dialer (its leak again);
#   day 4: dialer, a dump without that leak: fixed there, and only there.
# And `store leaks --since` keeps each leak's first seen, before the window; the dashboard
# compares versions of one app only.
set -euo pipefail
. "$(dirname "$0")/lib/common.bash"
cli_init store-trend-apps
cli_fixtures
DB=$T/s.db
printf 'watch java.lang.Thread\n' >"$T/watch.rules"
run store ingest --db "$DB" --app dialer --version 1.0 --at 2026-11-01 "$FIX/dialer.android-hprof"
expect_rc 0
run store ingest --db "$DB" --app svc --version 5.0 --at 2026-11-02 --rules "$T/watch.rules" \
    "$FIX/test-dump.hprof"
expect_rc 0
run store ingest --db "$DB" --app dialer --version 1.1 --at 2026-11-03 "$FIX/dialer.android-hprof"
expect_rc 0
small=${LEAKRAY_FIXTURES:-$LEAKRAY_SRC/../shared/fixtures}/v8/small.heapsnapshot
run store ingest --db "$DB" --app dialer --version 1.2 --at 2026-11-04 "$small"
expect_rc 0
run store trend --db "$DB" --json
json_eq '[b["fixed"] for b in d["buckets"]]' '[0, 0, 0, 1]'
json_eq '[b["recurring"] for b in d["buckets"]]' '[0, 0, 1, 0]'
run store trend --db "$DB" --by version --json
json_eq '[[b["version"], b["fixed"]] for b in d["buckets"]]' \
    '[["1.0", 0], ["1.1", 0], ["1.2", 1], ["5.0", 0]]'
# the window picks the leaks seen in it; first seen stays the leak's first report (it read
# the window's first day, every old leak as new)
run store leaks --db "$DB" --app dialer --kind application --since 2026-11-03 --json
json_eq '[l["first_seen"][:10] for l in d["leaks"]]' '["2026-11-01"]'
# the dashboard's default comparison, the two newest versions, is of one app: of two apps'
# (svc 5.0 against dialer 1.2) it called one app's leaks fixed by the other's release
run report --db "$DB" --format json -o -
json_eq 'd["comparison"]' null
run report --db "$DB" --app dialer --format json -o -
json_eq '[d["comparison"]["from"], d["comparison"]["to"]]' '["1.1", "1.2"]'
echo "store_trend_apps: ok"
