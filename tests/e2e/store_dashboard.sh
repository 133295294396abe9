#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# store_dashboard.sh: `leakray report --db` pages, from a SQLite store and from a PostgreSQL
# store (a real server this test starts, pg_cluster.bash) filled with the same real reports:
# a HotSpot dump of tests/programs/leaks ingested on two days as version 1.0, and version 1.1
# (store_lib.bash: one leak fixed, one grown, one new) whose new leak's description and
# leaking class are markup meant to run script. The two backends must give the same model;
# the pages are then opened in Chromium (store_dashboard.js): a click on a leak shows the
# trace `store show` prints and its reports, the Versions tab the known comparison, and no
# page made a request, opened a dialog or ran the planted script.
# Screenshots: $LEAKRAY_BUILD/artifacts/store_dashboard/.
set -euo pipefail
. "$(dirname "$0")/store_lib.bash"
. "$LEAKRAY_SRC/tests/lib/playwright.sh"
store_init store_dashboard
pw_setup || fail "Chromium + playwright-core unavailable"
art=$LEAKRAY_BUILD/artifacts/store_dashboard
rm -rf "$art"
mkdir -p "$art"

# Version 1.1 with markup in the new leak's description and in its leaking object's class.
python3 - "$W/v11.json" "$W/v11x.json" "$W/expect.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
e = json.load(open(sys.argv[3]))
MARK = '</script><script>alert(1)</script><img src=x onerror=alert(2)>'
g = [g for g in d["application_leaks"] if g["signature"] == e["new"][0]][0]
g["short_description"] = MARK + ".field"
t = json.loads(json.dumps(d["traces"][g["traces"][0]]))
t["signature"] = g["signature"]
t["elements"][-1]["class"] = MARK
d["traces"].append(t)
g["traces"] = [len(d["traces"]) - 1]
json.dump(d, open(sys.argv[2], "w"))
e["mark"] = MARK
json.dump(e, open(sys.argv[3], "w"))
PY

fill() {
    local db=$1
    "$LEAKRAY" store ingest --db "$db" --app demo --version 1.0 --at 2026-11-01 "$W/v10.json" \
        >/dev/null
    "$LEAKRAY" store ingest --db "$db" --app demo --version 1.0 --at 2026-11-02T10:00 \
        "$W/v10.json" >/dev/null
    "$LEAKRAY" store ingest --db "$db" --app demo --version 1.1 --at 2026-11-04 "$W/v11x.json" \
        >/dev/null
}

# The page: self-contained, three scripts (the data island, kit.js and the dashboard), markup only escaped.
page() {
    local db=$1 name=$2
    "$LEAKRAY" report --db "$db" --no-timing -o "$W/$name.html" >/dev/null ||
        fail "$name: report --db failed"
    "$LEAKRAY" report --db "$db" --no-timing --format json -o "$W/$name.json" >/dev/null ||
        fail "$name: report --db --format json failed"
    [ "$(grep -o '<script' "$W/$name.html" | wc -l)" = 3 ] || fail "$name: not three <script"
    ! grep -q '<img src=x' "$W/$name.html" || fail "$name: raw markup in the page"
    grep -q 'u003c/script\\u003e\\u003cscript\\u003ealert(1)' "$W/$name.html" ||
        fail "$name: the planted description is not in the data, escaped"
    ! grep -qiE '(src|href)="?(https?:)?//' "$W/$name.html" || fail "$name: a network reference"
}

db="$W/store.db"
fill "$db"
page "$db" sqlite
# The model: what the issue's dashboard shows, checked against the known answers.
jtrue '
len(d["leaks"]) == len(e["v10"]) + 1 and d["summary"]["reports"] == 3 and
d["summary"]["versions"] == 2 and d["summary"]["last_day"] - d["summary"]["first_day"] == 3 and
[l for l in d["leaks"] if l["signature"] == e["grown"][0]][0]["occurrences"] == 3 and
[l["days"] for l in d["leaks"] if l["signature"] == e["fixed"][0]][0] ==
  [[d["summary"]["first_day"], 1, [l for l in d["leaks"] if l["signature"] == e["fixed"][0]][0]["retained_max"]],
   [d["summary"]["first_day"] + 1, 1, [l for l in d["leaks"] if l["signature"] == e["fixed"][0]][0]["retained_max"]]] and
all(l["trace"]["elements"] and len(l["history"]) == l["occurrences"] for l in d["leaks"]) and
d["comparison"]["from"] == "1.0" and d["comparison"]["to"] == "1.1" and
[l["signature"] for l in d["comparison"]["leaks"] if l["change"] == "new"] == e["new"] and
[l["signature"] for l in d["comparison"]["leaks"] if l["change"] == "fixed"] == e["fixed"] and
[l["signature"] for l in d["comparison"]["leaks"] if l["change"] == "grown"] == e["grown"] and
[(b["label"], b["new"], b["fixed"]) for b in d["trend_by_version"]] ==
  [("1.0", len(e["v10"]), 0), ("1.1", 1, 1)] and
"generated" not in d' "sqlite dashboard model" <"$W/sqlite.json"
# The trace `store show` prints, for the page to match (less the ~~~ underline lines).
sig=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["grown"][0])' "$W/expect.json")
"$LEAKRAY" store show --db "$db" "$sig" >"$W/show.txt"
python3 - "$W/show.txt" "$W/expected-trace.txt" <<'PY'
import sys
lines = open(sys.argv[1], encoding='utf-8').read().split('\n')
start = lines.index('\u252c\u2500\u2500\u2500')
end = lines.index('', start)
keep = [l for l in lines[start:end] if '~' not in l or l.rstrip('~ ').rstrip() != '\u2502']
open(sys.argv[2], 'w', encoding='utf-8').write('\n'.join(keep))
PY
# $LEAKRAY_DB names the store when no dump is given; a dump still gets the heap report.
LEAKRAY_DB=$db "$LEAKRAY" report --no-timing --format json -o "$W/env.json" >/dev/null
cmp -s "$W/env.json" "$W/sqlite.json" || fail "LEAKRAY_DB: another model"
LEAKRAY_DB=$db "$LEAKRAY" report --format json -o "$W/heap.json" "$DUMP" >/dev/null
jtrue '"groups" in d and "leaks" not in d' "report FILE with LEAKRAY_DB set" <"$W/heap.json"
# An empty filter result and bad options.
"$LEAKRAY" report --db "$db" --app nosuch --no-timing --format json -o "$W/none.json" >/dev/null
jtrue 'd["leaks"] == [] and d["summary"]["reports"] == 0' "filtered to nothing" <"$W/none.json"
rc=0
"$LEAKRAY" report --db "$db" --from 1.0 -o "$W/x.html" 2>/dev/null || rc=$?
[ "$rc" = 2 ] || fail "--from without --to exited $rc"

# PostgreSQL: the same reports, the same model (the store's address aside).
. "$LEAKRAY_SRC/tests/e2e/pg_cluster.bash"
pg_start
pg_psql "CREATE DATABASE dash" >/dev/null
purl="postgres://postgres:secret@127.0.0.1:$PG_PORT/dash"
fill "$purl"
page "$purl" postgres
grep -q 'postgres://postgres:\*\*\*@127.0.0.1:[0-9]*/dash' "$W/postgres.json" || fail "password shown"
python3 - "$W/sqlite.json" "$W/postgres.json" <<'PY' || fail "PostgreSQL and SQLite models differ"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
for d in (a, b):
    d.pop("store")
    for l in d["leaks"]:
        for h in l["history"]:
            h.pop("report")
assert a == b, [(x["signature"], y["signature"]) for x, y in zip(a["leaks"], b["leaks"]) if x != y]
PY

pw_node "$LEAKRAY_SRC/tests/e2e/store_dashboard.js" "$W" "$art" "$sig"
ls "$art"/*.png >/dev/null || fail "no screenshots"
echo "store_dashboard: ok"
