#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# store_identity.sh: every leak store verb prints byte for byte what it printed before. A
# SQLite store is filled from fixture dumps with `store ingest` itself (dumps analysed on the
# way in, with watch and library-leak rules; reports of native scans; a report with markup and
# terminal escapes planted in its names; a version whose leak grew; a V8 snapshot, analysed
# as the dump it is; a truncated dump, a file that is no report, a missing file), then every verb runs in text and --json: ingest, leaks,
# show, trend, diff, prune, export, and the dashboard (`report --db`) as its model and as
# HTML, over filters and the error cases. The transcript (command, stdout, stderr, exit code)
# must equal tests/e2e/expected/store/identity.txt, and the page (styles, script and its hash
# left out: they are the page's assets, not the store's output) dashboard.html. Clock readings
# are normalised: export's ingested_at, timing lines. Regenerate with the reference binary:
#     scripts/store-identity-goldens.sh build/leakray
set -euo pipefail
: "${LEAKRAY:?}" "${LEAKRAY_SRC:?}" "${LEAKRAY_BUILD:?}"
fx="${LEAKRAY_FIXTURES:-$LEAKRAY_SRC/../shared/fixtures}"
if [ ! -f "$fx/hprof/dialer.android-hprof" ] || [ ! -f "$fx/hprof/test-dump.hprof" ] ||
    ! command -v python3 >/dev/null; then
    if [ "${CI:-}" = true ]; then echo "FAIL: fixtures or python3 missing" >&2; exit 1; fi
    echo "SKIP: fixtures ($fx) or python3 missing"
    exit 77
fi
expected=$LEAKRAY_SRC/tests/e2e/expected/store
W="$LEAKRAY_BUILD/tmp/store_identity"
rm -rf "$W"
mkdir -p "$W"
LEAKRAY=$(realpath "$LEAKRAY")
export LEAKRAY_RULES_DIR="$LEAKRAY_SRC/rules"
unset LEAKRAY_DB
cd "$W"
# Inputs under short relative names: the store keeps sources as given, and the transcript
# must not depend on where the checkout is.
cp "$fx/hprof/dialer.android-hprof" dialer.hprof
cp "$fx/hprof/test-dump.hprof" svc.hprof
head -c 4000 dialer.hprof >truncated.hprof
cp "$fx/v8/small.heapsnapshot" page.heapsnapshot
echo '{"page": "not a report"}' >other.json
printf 'watch java.lang.Thread\nwatch java.util.HashMap$TreeNode\n' >watch.rules
lib='library-leak static java.lang.invoke.MethodHandles$Lookup#STRING_TO_STRING_FACTORY'
printf '%s description "Lookup caches its <b>factory</b>"\n' "$lib" >lib.rules
"$LEAKRAY" native report --json --no-timing "$LEAKRAY_SRC/tests/data/native/leaks.lrn" \
    >native-leaks.json
"$LEAKRAY" native report --json --no-timing "$LEAKRAY_SRC/tests/data/native/threads.lrn" \
    >native-threads.json
"$LEAKRAY" analyze --json --no-timing dialer.hprof >dialer.json || [ $? = 1 ]
# Version 1.1 of the dialer: its leak retains twice as much (grown). "evil": the same leak
# under a new signature whose names carry markup and terminal escape sequences.
python3 - <<'PY'
import json
d = json.load(open("dialer.json"))
g = d["application_leaks"][0]
g["retained_bytes"] *= 2
json.dump(d, open("dialer-1.1.json", "w"))
MARK = '</script><script>alert(1)</script>\x1b[31mred\x1b[0m\x07<img src=x onerror=alert(2)>'
g["signature"] = "bad0" + g["signature"][4:]
g["short_description"] = MARK + ".field"
t = d["traces"][g["traces"][0]]
t["signature"] = g["signature"]
t["elements"][-1]["class"] = MARK
t["elements"][0]["reason"] = "\x1b]0;title\x07"
r = t["elements"][1]["reference"]
r["owner"] = "\u00dcberCache\x1b[2J"
r["display"] = "f\u00efeld\u00e9"
r["suspect"] = True
json.dump(d, open("evil.json", "w"))
PY

out=$W/identity.txt
: >"$out"
# run ARGS...: one transcript entry (stdout, then stderr, then the exit code).
run() {
    local rc=0
    "$LEAKRAY" "$@" >stdout 2>stderr || rc=$?
    {
        echo "\$ leakray $*"
        cat stdout
        [ -s stderr ] && { echo "[stderr]"; cat stderr; }
        echo "[exit $rc]"
    } >>"$out"
}
# Text and --json of one command.
C() {
    run "$@" --no-timing
    run "$@" --json --no-timing
}
# A file a command wrote, into the transcript.
F() {
    { echo "[file $1]"; cat "$1"; echo; } >>"$out"
}

db=store.db
I="store ingest --db $db"
run $I --app dialer --version 1.0 --device pixel --at 2026-11-01T08:00 dialer.hprof
run $I --app dialer --version 1.0 --device pixel --at 2026-11-01T08:00 dialer.hprof
run $I --json --no-timing --app dialer --version 1.0 --device pixel --at 2026-11-01T08:00 \
    dialer.hprof
run $I --app dialer --version 1.0 --device tablet --at 2026-11-02T09:30:15 dialer.hprof
run $I --app dialer --version 1.1 --at 2026-11-03 dialer-1.1.json
run $I --app svc --version 2.0 --device host1 --at 2026-11-02T12:00 --rules watch.rules svc.hprof
run $I --json --no-timing --app svc --version 2.1 --device host1 --at 2026-11-04 \
    --rules watch.rules --rules lib.rules svc.hprof
run $I --app nat --version 7 --at @1762300800 native-leaks.json native-threads.json
run $I --app evil --version 9.9 --device 'dev "x"' --at 2026-11-05T23:59 evil.json
run $I --app $'caf\xc3\xa9\x1b[1m' --version 9.9 --device $'\xc3\xa9t\xc3\xa9' --at 2026-11-06 \
    evil.json
run $I --app dialer --version 1.1 --at 2026-11-04 truncated.hprof
run $I --json --no-timing --app dialer --version 1.1 --at 2026-11-04 truncated.hprof \
    page.heapsnapshot missing.hprof dialer-1.1.json
run $I --app web --at 2026-11-04 page.heapsnapshot
run $I --at 2026-11-04 missing.hprof
run $I --at 2026-11-04 other.json
run $I --at yesterday dialer.hprof
run store ingest --db "$db"

C store leaks --db "$db"
C store leaks --db "$db" --app dialer
C store leaks --db "$db" --app dialer --version 1.0
C store leaks --db "$db" --kind library
C store leaks --db "$db" --kind native
C store leaks --db "$db" --since 2026-11-03
C store leaks --db "$db" --since 2026-11-04T00:00Z --app svc
C store leaks --db "$db" --app nosuch
run store leaks --db "$db" --since soon

# show: every leak by a 6-digit prefix, then the refusals.
"$LEAKRAY" store leaks --db "$db" --json --no-timing |
    python3 -c 'import json, sys
for l in json.load(sys.stdin)["leaks"]:
    print(l["signature"][:6])' >sigs
while read -r sig; do
    C store show --db "$db" "$sig"
done <sigs
C store show --db "$db" "$(head -1 sigs)ab0000"
C store show --db "$db" 12
C store show --db "$db" eeee

C store trend --db "$db"
C store trend --db "$db" --by version
C store trend --db "$db" --by version --app dialer
C store trend --db "$db" --kind application --since 2026-11-02
C store trend --db "$db" --app nosuch

C store diff --db "$db" --from 1.0 --to 1.1
C store diff --db "$db" --from 1.0 --to 1.1 --threshold 150
C store diff --db "$db" --from 2.0 --to 2.1 --fail-on-new
C store diff --db "$db" --from 2.0 --to 2.1 --kind library
C store diff --db "$db" --from 1.0 --to 9.9 --app dialer
C store diff --db "$db" --from 0.1 --to 0.2
run store diff --db "$db" --from 1.0

# The dashboard: its model, and the page.
run report --db "$db" --no-timing --format json -o dash.json
F dash.json
run report --db "$db" --no-timing --format json --app dialer --from 1.0 --to 1.1 \
    --threshold 150 -o dash-dialer.json
F dash-dialer.json
run report --db "$db" --no-timing --format json --kind native --since 2026-11-01 -o dash-n.json
F dash-n.json
run report --db "$db" --no-timing --format json --app nosuch -o dash-none.json
F dash-none.json
run report --db "$db" --json --no-timing --format json -o dash2.json
cmp -s dash.json dash2.json || echo "[dash2.json differs from dash.json]" >>"$out"
run report --db "$db" --no-timing -o dash.html
run report --db "$db" --json --no-timing -o dash.html
run report --db "$db" -o dash-timed.html
LEAKRAY_DB=$db run report --no-timing -o dash-env.html
cmp -s dash.html dash-env.html || echo "[dash-env.html differs from dash.html]" >>"$out"
run report --db "$db" --no-timing --format csv -o x.html
run report --db "$db" --no-timing --from 1.0 -o x.html
run report --db "$db" --no-timing --since never -o x.html
python3 - dash.html dashboard.html <<'PY'
import re, sys
s = open(sys.argv[1], encoding="utf-8").read()
s = re.sub(r"(<style[^>]*>).*?(</style>)", r"\1...\2", s, flags=re.S)
s = re.sub(r"(<script(?![^>]*application/json)[^>]*>).*?(</script>)", r"\1...\2", s, flags=re.S)
s = re.sub(r"sha256-[A-Za-z0-9+/=]+", "sha256-...", s)
open(sys.argv[2], "w", encoding="utf-8").write(s)
PY

# export (ingest times are the clock's: normalised below) and prune, on a copy.
run store export --db "$db"
run store export --db "$db" --json --table leak
cp "$db" prune.db
run store prune --db prune.db
run store prune --db prune.db --keep-days 100000
run store prune --db prune.db --json --no-timing --keep-dumps 6
C store leaks --db prune.db
run store prune --db prune.db --keep-dumps 2 --keep-days 100000
run store prune --db prune.db --json --no-timing --keep-days 0
C store leaks --db prune.db

run store
run store --help
run store nosuch
run store leaks --help
run store leaks --db "$db" extra

sed -i -E -e 's/^(report: )[0-9.]+ m?s$/\1<time>/' -e 's/^( *"ingested_at": )[0-9]+/\1<time>/' \
    "$out"
if [ -n "${LEAKRAY_UPDATE_GOLDEN:-}" ]; then
    mkdir -p "$expected"
    cp "$out" "$expected/identity.txt"
    cp dashboard.html "$expected/dashboard.html"
    echo "store_identity: goldens written to $expected"
    exit 0
fi
bad=0
for f in identity.txt dashboard.html; do
    if ! cmp -s "$expected/$f" "$W/$f"; then
        echo "FAIL: $f differs from tests/e2e/expected/store/$f:" >&2
        diff -a "$expected/$f" "$W/$f" | head -40 >&2
        bad=1
    fi
done
[ "$bad" = 0 ] || exit 1
echo "store_identity: $(grep -c '^\$ leakray' "$out") commands byte-identical"
