# SPDX-License-Identifier: Apache-2.0
# store_lib.bash: the leak store's end-to-end cases, run against any store URL (sourced by
# store_sqlite.sh and store_postgres.sh, not a test itself). The input is a real HotSpot dump
# of tests/programs/leaks (seven leak traces in six groups) and its `analyze --json` report;
# version 1.1 is that report with one group removed (fixed), one group's retained size
# doubled (grown) and one group added under a new signature (new), so the expected answers of
# diff and trend are known exactly. Every count is checked against the report itself.
# Provides: store_init NAME, store_cases URL, store_consistent URL, fail MSG.

fail() {
    echo "FAIL: $*" >&2
    exit 1
}

store_init() {
    : "${LEAKRAY:?}" "${LEAKRAY_SRC:?}" "${LEAKRAY_BUILD:?}"
    if ! command -v javac >/dev/null || ! command -v java >/dev/null ||
        ! command -v python3 >/dev/null; then
        [ "${CI:-}" = true ] && fail "javac/java/python3 required under CI=true"
        echo "SKIP: javac/java/python3 not installed"
        exit 77
    fi
    W="$LEAKRAY_BUILD/tmp/$1"
    rm -rf "$W"
    mkdir -p "$W/classes"
    javac -d "$W/classes" "$LEAKRAY_SRC"/tests/programs/leaks/*.java
    java -cp "$W/classes" com.example.LeakDemo "$W/demo.hprof" >/dev/null
    DUMP="$W/demo.hprof"
    "$LEAKRAY" analyze --json --no-timing "$DUMP" >"$W/v10.json" || [ $? = 1 ]
    # Version 1.1 of the same app: one leak fixed, one grown, one new.
    python3 - "$W/v10.json" "$W/v11.json" "$W/expect.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
apps = d["application_leaks"]
assert len(apps) >= 3, len(apps)
fixed = apps[0]["signature"]
grown = apps[1]["signature"]
apps[1]["retained_bytes"] *= 2
new = dict(apps[2])
new["signature"] = "feed" + apps[2]["signature"][4:]
new["short_description"] = "NewCache.ENTRIES"
d["application_leaks"] = apps[1:] + [new]
json.dump(d, open(sys.argv[2], "w"))
all10 = [g["signature"] for g in json.load(open(sys.argv[1]))["application_leaks"]]
json.dump({"fixed": [fixed], "grown": [grown], "new": [new["signature"]],
           "v10": all10, "groups": len(all10) + len(d["library_leaks"])},
          open(sys.argv[3], "w"))
PY
}

# jq-like check: python expression over the JSON on stdin (as d) must be true.
jtrue() {
    python3 -c 'import json,sys; d=json.load(sys.stdin); e=json.load(open(sys.argv[2])); \
assert eval("(" + sys.argv[1] + ")"), (sys.argv[1], json.dumps(d)[:600])' "$1" "$W/expect.json" ||
        fail "$2"
}

# Every stored report is whole: an ok report has exactly leak_count occurrence rows.
store_consistent() {
    "$LEAKRAY" store export --db "$1" | jtrue '
all(r["leak_count"] == sum(1 for o in d["occurrences"] if o["report_id"] == r["id"])
    for r in d["reports"] if r["status"] == "ok")
and set(o["signature"] for o in d["occurrences"]) <= set(l["signature"] for l in d["leaks"])' \
        "a stored report is not whole"
}

store_cases() {
    local db=$1 out rc
    # 1. a dump, analysed on the way in
    "$LEAKRAY" store ingest --db "$db" --json --app demo --version 1.0 --at 2026-11-01 \
        "$DUMP" >"$W/i1.json" || fail "ingest of a dump failed"
    jtrue 'd["ingested"][0]["status"] == "stored" and d["ingested"][0]["leaks"] == e["groups"]
           and d["ingested"][0]["new_leaks"] == e["groups"]' "first ingest" <"$W/i1.json"
    # 2. the same again: nothing new
    "$LEAKRAY" store ingest --db "$db" --json --app demo --version 1.0 --at 2026-11-01 \
        "$DUMP" | jtrue 'd["ingested"][0]["status"] == "duplicate"' "identical ingest stored twice"
    "$LEAKRAY" store leaks --db "$db" --json |
        jtrue 'len(d["leaks"]) == e["groups"] and all(l["occurrences"] == 1 for l in d["leaks"])' \
            "identical ingest counted twice"
    # 3. its report, taken a day later: a second occurrence of the same dump
    "$LEAKRAY" store ingest --db "$db" --app demo --version 1.0 --at 2026-11-02 "$W/v10.json" \
        >/dev/null || fail "ingest of a report failed"
    "$LEAKRAY" store leaks --db "$db" --json |
        jtrue 'len(d["leaks"]) == e["groups"] and all(l["occurrences"] == 2 and l["dumps"] == 1
               and l["first_seen"] == "2026-11-01T00:00:00Z" for l in d["leaks"])' \
            "second occurrence"
    # 4. version 1.1
    "$LEAKRAY" store ingest --db "$db" --app demo --version 1.1 --at 2026-11-03 "$W/v11.json" \
        >/dev/null || fail "ingest of version 1.1"
    "$LEAKRAY" store diff --db "$db" --from 1.0 --to 1.1 --json | jtrue '
sorted(l["signature"] for l in d["leaks"] if l["change"] == "new") == e["new"] and
sorted(l["signature"] for l in d["leaks"] if l["change"] == "fixed") == e["fixed"] and
sorted(l["signature"] for l in d["leaks"] if l["change"] == "grown") == e["grown"] and
d["counts"]["same"] == len(e["v10"]) - 2' "diff 1.0 -> 1.1"
    rc=0
    "$LEAKRAY" store diff --db "$db" --from 1.0 --to 1.1 --fail-on-new >/dev/null || rc=$?
    [ "$rc" = 1 ] || fail "--fail-on-new exited $rc with a new leak"
    "$LEAKRAY" store trend --db "$db" --by version --json | jtrue '
[(b["version"], b["reports"], b["new"], b["recurring"], b["fixed"]) for b in d["buckets"]] ==
[("1.0", 2, len(e["v10"]), 0, 0), ("1.1", 1, 1, len(e["v10"]) - 1, 1)]' "trend by version"
    "$LEAKRAY" store trend --db "$db" --json |
        jtrue '[b["day"] for b in d["buckets"]] == ["2026-11-01", "2026-11-02", "2026-11-03"]' \
            "trend by day"
    "$LEAKRAY" store trend --db "$db" --app nosuch --json |
        jtrue 'd["buckets"] == []' "trend of no report"
    "$LEAKRAY" store leaks --db "$db" --version 1.1 --json |
        jtrue 'len(d["leaks"]) == len(e["v10"])' "--version filter"
    # 5. one leak's history and trace
    local sig
    sig=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["grown"][0])' \
        "$W/expect.json")
    "$LEAKRAY" store show --db "$db" "${sig:0:8}" --json | jtrue '
len(d["occurrences"]) == 3 and d["leak"]["retained_max"] == 2 * d["occurrences"][-1]["retained_bytes"]
and json.loads(d["trace_json"])["signature"] == d["leak"]["signature"]' "store show"
    "$LEAKRAY" store show --db "$db" "${sig:0:8}" >"$W/show.txt" || fail "store show text"
    grep -q "^╰→ com.example" "$W/show.txt" || fail "store show prints no trace"
    rc=0
    "$LEAKRAY" store show --db "$db" 0000dead >/dev/null 2>&1 || rc=$?
    [ "$rc" = 2 ] || fail "unknown signature exited $rc, not 2"
    # 6. bad input is refused and leaves the store as it was; a bad dump is recorded as failed
    head -c 500 "$W/v10.json" >"$W/trunc.json"
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d["schema_version"]=99;
json.dump(d, open(sys.argv[2], "w"))' "$W/v10.json" "$W/newer.json"
    head -c 4000 "$DUMP" >"$W/trunc.hprof"
    # a signature holding a terminal's escape sequence (it was stored and printed raw)
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1]));
d["application_leaks"][0]["signature"] = "\x1b]0;pwned\x07" + "ab" * 10;
json.dump(d, open(sys.argv[2], "w"))' "$W/v10.json" "$W/escsig.json"
    local f msg
    for f in "trunc.json:not a complete JSON document" "newer.json:newer than this leakray" \
        "trunc.hprof:^failed: .*offset 0x" "escsig.json:signature is .*not a hex digest"; do
        msg=${f#*:}
        f=${f%%:*}
        rc=0
        "$LEAKRAY" store ingest --db "$db" "$W/$f" >"$W/out" 2>"$W/err" || rc=$?
        [ "$rc" = 3 ] || fail "bad input $f exited $rc, not 3"
        grep -qE "$msg" <<<"$(cat "$W/out" "$W/err")" || fail "bad input $f: no '$msg' message"
    done
    "$LEAKRAY" store export --db "$db" | jtrue '
sum(1 for r in d["reports"] if r["status"] == "ok") == 3 and
[r["source"].split("/")[-1] for r in d["reports"] if r["status"] == "failed"] == ["trunc.hprof"]
and "offset" in [r for r in d["reports"] if r["status"] == "failed"][0]["error"]' \
        "bad inputs changed the store"
    # 7. 16 ingesters at once, 2 reports each
    local pids=() i k
    for i in $(seq 1 16); do
        (for k in 1 2; do
            "$LEAKRAY" store ingest --db "$db" --app fleet --device "host$i" \
                --at "@$((1764000000 + i * 10 + k))" "$W/v10.json" >/dev/null || exit 1
        done) &
        pids+=($!)
    done
    for i in "${pids[@]}"; do wait "$i" || fail "a concurrent ingester failed"; done
    "$LEAKRAY" store export --db "$db" |
        jtrue 'sum(1 for r in d["reports"] if r["app"] == "fleet") == 32' \
            "concurrent ingests lost reports"
    store_consistent "$db"
    # The running totals kept by each ingest equal the totals recomputed from the occurrences
    # (a --since filter lists the leaks by grouping every occurrence instead).
    "$LEAKRAY" store leaks --db "$db" --json >"$W/totals.json"
    "$LEAKRAY" store leaks --db "$db" --since @0 --json >"$W/grouped.json"
    cmp -s "$W/totals.json" "$W/grouped.json" || fail "running totals differ from the occurrences"
    # a window keeps each leak's first seen of the app asked for (the subquery's parameters)
    "$LEAKRAY" store leaks --db "$db" --app fleet --json >"$W/app.json"
    "$LEAKRAY" store leaks --db "$db" --app fleet --since @1764000080 --json >"$W/window.json"
    python3 - "$W/app.json" "$W/window.json" <<'PY' || fail "--since moved first seen"
import json, sys
a = {l["signature"]: l["first_seen"] for l in json.load(open(sys.argv[1]))["leaks"]}
w = json.load(open(sys.argv[2]))["leaks"]
assert w and all(l["first_seen"] == a[l["signature"]] for l in w), (a, w)
PY
    # 8. a process killed mid-ingest leaves whole reports only
    for i in 1 2 3 4 5; do
        "$LEAKRAY" store ingest --db "$db" --app killed --at "@$((1765000000 + i))" \
            "$W/v10.json" "$W/v11.json" "$W/v10.json" "$W/v11.json" >/dev/null 2>&1 &
        local p=$!
        sleep "0.0$((i * 7 % 10))"
        kill -9 "$p" 2>/dev/null || true
        wait "$p" 2>/dev/null || true
    done
    store_consistent "$db"
    # 9. prune
    "$LEAKRAY" store prune --db "$db" --keep-dumps 2 --json |
        jtrue 'd["removed_reports"] > 0' "prune removed nothing"
    "$LEAKRAY" store export --db "$db" | jtrue 'len(d["reports"]) == 2 and
set(l["signature"] for l in d["leaks"]) == set(o["signature"] for o in d["occurrences"])' \
        "prune left orphans or wrong reports"
}

# 16 processes creating and filling one new store at once: schema creation must serialise.
store_fresh_concurrent() {
    local db=$1 pids=() i
    for i in $(seq 1 16); do
        "$LEAKRAY" store ingest --db "$db" --at "@$((1766000000 + i))" "$W/v10.json" \
            >/dev/null &
        pids+=($!)
    done
    for i in "${pids[@]}"; do wait "$i" || fail "an ingester into a new store failed"; done
    "$LEAKRAY" store export --db "$db" |
        jtrue 'len(d["reports"]) == 16 and len(d["leaks"]) == e["groups"]' \
            "concurrent creation of a new store"
}

# What a fleet sends that the plain cases do not: 4 ingesters of 10 reports each that list
# the same 100 leaks each in its own order (PostgreSQL deadlocked on crossing row locks and
# lost reports); a version string of 70 bytes (a build tag with a commit hash) in the trend
# and the dashboard; text that is no valid UTF-8 (a lone surrogate escape in a class name),
# stored alike by both backends; --at dates that do not exist, refused.
store_fleet_cases() {
    local db=$1 pids=() i
    python3 - "$W/v10.json" "$W/cross" <<'PY'
import hashlib, json, os, random, sys
d = json.load(open(sys.argv[1]))
out = sys.argv[2]
os.makedirs(out, exist_ok=True)
g0 = d["application_leaks"][0]
sigs = [hashlib.sha1(b"cross%d" % i).hexdigest() for i in range(100)]
r = random.Random(7)
for n in range(40):
    order = sigs[:]
    r.shuffle(order)
    groups = []
    for s in order:
        g = dict(g0)
        g["signature"] = s
        g.pop("stable_signature", None)
        groups.append(g)
    e = dict(d, application_leaks=groups, library_leaks=[], run=n)
    json.dump(e, open(f"{out}/r{n:02d}.json", "w"))
# 24 reports of 400 leaks each out of 600, in many chunks: ingests of overlapping sets
# deadlocked crosswise on PostgreSQL, and the retry the docs promise never ran
pool = [hashlib.sha1(b"overlap%d" % i).hexdigest() for i in range(600)]
for n in range(24):
    groups = [dict(g0, signature=s, short_description="Leak." + s[:6])
              for s in r.sample(pool, 400)]
    for g in groups:
        g.pop("stable_signature", None)
    json.dump(dict(d, application_leaks=groups, library_leaks=[]), open(f"{out}/o{n:02d}.json", "w"))
bad = dict(d)
bad["application_leaks"] = [dict(g0, signature="bad0" + g0["signature"][4:],
                                 short_description="Cache\udc80.sInstance")]
bad["library_leaks"] = []
json.dump(bad, open(f"{out}/surrogate.json", "w"))
PY
    for i in 0 1 2 3; do
        (for k in 0 1 2 3 4 5 6 7 8 9; do
            "$LEAKRAY" store ingest --db "$db" --app cross --at "@$((1767000000 + i * 10 + k))" \
                "$W/cross/r$i$k.json" >/dev/null || exit 1
        done) &
        pids+=($!)
    done
    for i in "${pids[@]}"; do wait "$i" || fail "an ingest crossing the others failed"; done
    "$LEAKRAY" store leaks --db "$db" --app cross --json |
        jtrue 'len(d["leaks"]) == 100 and all(l["occurrences"] == 40 for l in d["leaks"])' \
            "crossing ingests lost reports"
    store_consistent "$db"

    # overlapping ingests side by side, and a prune (which rewrites every leak's totals)
    # running through them: every report stored, the totals those of the occurrences
    pids=()
    for i in $(seq 0 23); do
        "$LEAKRAY" store ingest --db "$db" --app overlap --version "v$((i % 5))" \
            --at "@$((1768000000 + i))" "$W/cross/o$(printf %02d "$i").json" >/dev/null &
        pids+=($!)
    done
    (for i in 1 2 3 4 5 6; do
        "$LEAKRAY" store prune --db "$db" --keep-days 100000 >/dev/null || exit 1
    done) &
    pids+=($!)
    for i in "${pids[@]}"; do wait "$i" || fail "an overlapping ingest or a prune failed"; done
    python3 - "$W/cross" >"$W/overlap.want" <<'PY'
import collections, glob, json, sys
c = collections.Counter(g["signature"] for f in glob.glob(sys.argv[1] + "/o*.json")
                        for g in json.load(open(f))["application_leaks"])
print(json.dumps(sorted(c.items())))
PY
    "$LEAKRAY" store leaks --db "$db" --app overlap --json | python3 -c '
import json, sys
d = json.load(sys.stdin)
print(json.dumps(sorted((l["signature"], l["occurrences"]) for l in d["leaks"])))' \
        >"$W/overlap.got"
    cmp -s "$W/overlap.want" "$W/overlap.got" || fail "overlapping ingests lost reports"
    store_consistent "$db"

    local long
    long=2026.11.05-main-9f8e7d6c5b4a39281706f5e4d3c2b1a098765432-linux-x86_64
    "$LEAKRAY" store ingest --db "$db" --app tag --version 1.0 --at 2026-11-01 "$W/v10.json" \
        >/dev/null
    "$LEAKRAY" store ingest --db "$db" --app tag --version "$long" --at 2026-11-02 \
        "$W/v10.json" >/dev/null
    "$LEAKRAY" store trend --db "$db" --app tag --by version --json | jtrue '
[(b["version"], b["new"], b["recurring"], b["fixed"]) for b in d["buckets"]] ==
[("1.0", e["groups"], 0, 0), ("'"$long"'", 0, e["groups"], 0)]' "a long version's trend"
    # pre-releases before their release (semantic versioning), and the dashboard compares
    # the last two: the release sorted first (strverscmp: a prefix first), so the release's
    # fix counted nowhere and the page compared rc1 with rc2
    local v
    for v in 1.2.0 1.2.0-rc2 1.2.0-rc1 1.10.0~beta 1.9.9; do
        "$LEAKRAY" store ingest --db "$db" --app pre --version "$v" --at 2026-11-02 \
            "$W/v10.json" >/dev/null || fail "ingest of version $v"
    done
    "$LEAKRAY" store trend --db "$db" --app pre --by version --json | jtrue '
[b["version"] for b in d["buckets"]] == ["1.2.0-rc1", "1.2.0-rc2", "1.2.0", "1.9.9",
    "1.10.0~beta"]' "pre-releases in release order"
    # a kind filter counts that kind's bytes: no suspect leak, no byte (the report totals,
    # every kind's, were shown)
    "$LEAKRAY" store trend --db "$db" --app tag --by version --kind suspect --json | jtrue '
[(b["leaks"], b["retained_bytes"]) for b in d["buckets"]] == [(0, 0), (0, 0)]' "trend --kind's bytes"
    "$LEAKRAY" report --db "$db" --app tag -o "$W/tag.html" >/dev/null 2>"$W/err" ||
        fail "dashboard with a long version: $(cat "$W/err")"

    "$LEAKRAY" store ingest --db "$db" --app bad --at 2026-11-03 "$W/cross/surrogate.json" \
        >/dev/null 2>"$W/err" || fail "a report with a lone surrogate: $(cat "$W/err")"
    "$LEAKRAY" store leaks --db "$db" --app bad --json |
        jtrue '"\ufffd" in d["leaks"][0]["short_description"] and
d["leaks"][0]["short_description"].replace("\ufffd", "") == "Cache.sInstance"' \
            "a lone surrogate not stored as U+FFFD"

    # an --app / --version of bytes that are no UTF-8 is kept as the report keeps it (U+FFFD),
    # in the leaks' counts too (PostgreSQL refused the raw bytes), and a filter given the
    # same bytes finds it
    "$LEAKRAY" store ingest --db "$db" --app $'caf\xe9' --version $'v\xfe1' --at 2026-11-04 \
        "$W/v10.json" >/dev/null 2>"$W/err" || fail "an --app of no UTF-8: $(cat "$W/err")"
    "$LEAKRAY" store leaks --db "$db" --app $'caf\xe9' --version $'v\xfe1' --json |
        jtrue 'len(d["leaks"]) == e["groups"] and all(l["apps"] == 1 for l in d["leaks"])' \
            "a filter on an --app of no UTF-8"

    local at rc
    for at in 2026-02-30 2026-01-05T-1:00 @-1 @9223372036854776 1969-12-31; do
        rc=0
        "$LEAKRAY" store ingest --db "$db" --at "$at" "$W/v10.json" >/dev/null 2>&1 || rc=$?
        [ "$rc" = 2 ] || fail "--at $at: exit $rc, want 2"
    done
}
