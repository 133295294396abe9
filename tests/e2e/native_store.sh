#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# native_store.sh: every scan of a monitored program goes into a SQLite leak store when the
# monitor is given one (`native run --store URL`, i.e. LEAKRAY_NATIVE_STORE): busy.c leaks
# 7 blocks of 99 bytes from one call site and keeps allocating on two threads. After the
# first `native check`, `store leaks` lists that one native leak under the signature the
# scan printed; a second check and the at-exit scan are further occurrences of the same
# leak, never a second leak. `native report FILE --store` records a saved scan (once: again
# is "already stored"), and the library's own LEAKRAY_NATIVE_REPORT=db uses $LEAKRAY_DB; the
# store's URL reaches the recording leakray in its environment, not its command line.
set -euo pipefail
. "$(dirname "$0")/native_lib.bash"
nat_init native_store
B=$NAT_TMP/bin
mkdir -p "$B"
gcc -O0 -g -fno-omit-frame-pointer -pthread -o "$B/busy" "$NAT_PROGS/busy.c" ||
    nat_fail "gcc could not build busy.c"
gcc -O0 -g -fno-omit-frame-pointer -o "$B/lost" "$NAT_PROGS/lost.c" ||
    nat_fail "gcc could not build lost.c"
DB=$NAT_TMP/leaks.db
K=$NAT_TMP/scans

# leaks_field DB FIELD: FIELD of every native leak in the store, one per line.
leaks_field() {
    "$LEAKRAY" store leaks --db "$1" --kind native --json >"$NAT_TMP/leaks.json" ||
        nat_fail "store leaks failed on $1"
    python3 - "$NAT_TMP/leaks.json" "$2" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
for l in doc["leaks"]:
    print(l[sys.argv[2]])
PY
}
# signatures JSON: the direct groups' signatures of a native --json report.
signatures() {
    python3 -c '
import json, sys
print(*[g["signature"] for g in json.load(open(sys.argv[1]))["groups"]])' "$1"
}

"$LEAKRAY" native run --store "$DB" --app busy --version 1.0 --keep "$K" --json --no-timing \
    -- "$B/busy" "$NAT_TMP/pid" "$NAT_TMP/stop" >"$NAT_TMP/run.out" 2>"$NAT_TMP/run.err" &
RUN=$!
trap 'touch "$NAT_TMP/stop"; wait $RUN 2>/dev/null || true' EXIT
for _ in $(seq 200); do [ -s "$NAT_TMP/pid" ] && break; sleep 0.05; done
[ -s "$NAT_TMP/pid" ] || nat_fail "busy never wrote its pid"
PID=$(cat "$NAT_TMP/pid")

"$LEAKRAY" native check "$PID" --json --no-timing >"$NAT_TMP/check1.json" ||
    nat_fail "native check 1 failed"
SIG=$(signatures "$NAT_TMP/check1.json")
[ -n "$SIG" ] && [ "$(wc -w <<<"$SIG")" = 1 ] ||
    nat_fail "check 1: expected one leak group, got '$SIG'"
# The answer to `check` comes once the scan is stored.
[ "$(leaks_field "$DB" signature)" = "$SIG" ] ||
    nat_fail "after check 1 the store lists '$(leaks_field "$DB" signature)', expected $SIG"
[ "$(leaks_field "$DB" occurrences)" = 1 ] || nat_fail "after check 1: occurrences not 1"
[ "$(leaks_field "$DB" instances)" = 7 ] || nat_fail "after check 1: instances not 7"

"$LEAKRAY" native check "$PID" --json --no-timing >"$NAT_TMP/check2.json" ||
    nat_fail "native check 2 failed"
[ "$(signatures "$NAT_TMP/check2.json")" = "$SIG" ] || nat_fail "check 2: another signature"
[ "$(leaks_field "$DB" signature)" = "$SIG" ] || nat_fail "check 2 duplicated the leak"
[ "$(leaks_field "$DB" occurrences)" = 2 ] || nat_fail "after check 2: occurrences not 2"

touch "$NAT_TMP/stop"
wait $RUN || nat_fail "native run failed: $(cat "$NAT_TMP/run.err")"
trap - EXIT
[ "$(leaks_field "$DB" signature)" = "$SIG" ] || nat_fail "the exit scan duplicated the leak"
[ "$(leaks_field "$DB" occurrences)" = 3 ] ||
    nat_fail "after the exit scan: occurrences $(leaks_field "$DB" occurrences), expected 3"
"$LEAKRAY" store leaks --db "$DB" --app busy --version 1.0 >"$NAT_TMP/leaks.txt" ||
    nat_fail "store leaks --app failed"
grep -q "${SIG:0:8}" "$NAT_TMP/leaks.txt" || nat_fail "store leaks (text) does not show $SIG"

# A saved scan, recorded once: again with the same app and version it is already stored.
EXIT_SCAN=$(grep -l '^reason exit' "$K"/*.lrn | head -1)
"$LEAKRAY" native report "$EXIT_SCAN" --store "$DB" --app busy --version 1.0 \
    >/dev/null 2>"$NAT_TMP/again.err" ||
    nat_fail "native report --store failed"
grep -q "already stored" "$NAT_TMP/again.err" || nat_fail "re-recording a scan was not a no-op"
# `store ingest` takes a saved scan as `native report --store` does: the same report (it
# was recorded as a failed ingest, "scan with --graph")
"$LEAKRAY" store ingest --db "$DB" --app busy --version 1.0 "$EXIT_SCAN" >"$NAT_TMP/ingest.out" \
    2>&1 || nat_fail "store ingest of a scan: $(cat "$NAT_TMP/ingest.out")"
grep -q "^already stored: " "$NAT_TMP/ingest.out" ||
    nat_fail "store ingest of a scan: $(cat "$NAT_TMP/ingest.out")"
"$LEAKRAY" store ingest --db "$NAT_TMP/scan-only.db" --app busy "$EXIT_SCAN" >/dev/null ||
    nat_fail "store ingest of a scan into a new store"
[ "$(leaks_field "$NAT_TMP/scan-only.db" signature)" = "$SIG" ] ||
    nat_fail "store ingest of a scan: another leak"
[ "$(leaks_field "$DB" occurrences)" = 3 ] || nat_fail "re-recording added an occurrence"

# Plain LD_PRELOAD: LEAKRAY_NATIVE_REPORT=db records the at-exit scan in $LEAKRAY_DB.
DB2=$NAT_TMP/default.db
(cd "$NAT_TMP" && LEAKRAY_DB=$DB2 LD_PRELOAD=$NAT_LIB LEAKRAY_NATIVE_REPORT=db \
    LEAKRAY_NATIVE_SOCKET=0 "$B/lost" >/dev/null) || nat_fail "lost failed under the monitor"
# lost.c: 3 x 40 bytes and 1 x 100 (calloc) from two call sites.
[ "$(leaks_field "$DB2" instances | sort -n | tr '\n' ' ')" = "1 3 " ] ||
    nat_fail "LEAKRAY_NATIVE_REPORT=db: expected groups of 1 and 3 blocks in $DB2"
# A store that cannot be opened is one error line and a non-zero exit, the rendering intact.
set +e
"$LEAKRAY" native report "$EXIT_SCAN" --store "$NAT_TMP/no/such/dir/x.db" \
    >"$NAT_TMP/bad.out" 2>"$NAT_TMP/bad.err"
rc=$?
set -e
[ $rc = 4 ] || nat_fail "unwritable store: exit $rc, expected 4 ($(cat "$NAT_TMP/bad.err"))"
grep -q "SUMMARY" "$NAT_TMP/bad.out" || nat_fail "unwritable store: no rendering"
# A relative store names a file where `native run` was typed, even when the program moves
# to another folder before its exit scan (the scan went into a store of that folder)
cat >"$NAT_TMP/mover.c" <<'C'
#include <stdlib.h>
#include <unistd.h>
int main(int argc, char **argv)
{
    for (int i = 0; i < 10; i++)
        if (!malloc(100))
            return 1;
    return argc > 1 && chdir(argv[1]) != 0;
}
C
gcc -O0 -g -o "$B/mover" "$NAT_TMP/mover.c" || nat_fail "gcc could not build mover.c"
mkdir -p "$NAT_TMP/elsewhere"
(cd "$NAT_TMP" && "$LEAKRAY" native run --store rel.db --app mover -- "$B/mover" \
    "$NAT_TMP/elsewhere" >/dev/null 2>"$NAT_TMP/mover.err") ||
    nat_fail "native run mover: $(cat "$NAT_TMP/mover.err")"
[ -f "$NAT_TMP/rel.db" ] && [ ! -e "$NAT_TMP/elsewhere/rel.db" ] ||
    nat_fail "a relative store followed the program's chdir"
[ "$(leaks_field "$NAT_TMP/rel.db" instances)" = 10 ] || nat_fail "mover's scan not in rel.db"

# The store's URL (a password in it) goes to the leakray that records a scan in its
# environment, never on its command line (ps shows that to every local user); a failure
# line does not repeat it either. A stand-in leakray records what it was given, and fails.
cat >"$NAT_TMP/fake-leakray" <<'SH'
#!/bin/sh
printf '%s\n' "$@" >"$FAKE_OUT.argv"
printf '%s\n' "$LEAKRAY_DB" >"$FAKE_OUT.db"
exit 4
SH
chmod +x "$NAT_TMP/fake-leakray"
url="postgres://ci:NATsecret@127.0.0.1:1/leaks"
(cd "$NAT_TMP" && FAKE_OUT=$NAT_TMP/fake LEAKRAY_NATIVE_LEAKRAY=$NAT_TMP/fake-leakray \
    LD_PRELOAD=$NAT_LIB LEAKRAY_NATIVE_STORE=$url LEAKRAY_NATIVE_SOCKET=0 "$B/lost" \
    >/dev/null 2>"$NAT_TMP/fake.err") || nat_fail "lost failed under the monitor"
[ -s "$NAT_TMP/fake.argv" ] || nat_fail "the scan was not handed to leakray"
! grep -q NATsecret "$NAT_TMP/fake.argv" ||
    nat_fail "the store's password on a command line: $(tr '\n' ' ' <"$NAT_TMP/fake.argv")"
[ "$(cat "$NAT_TMP/fake.db")" = "$url" ] || nat_fail "LEAKRAY_DB: $(cat "$NAT_TMP/fake.db")"
grep -q "was not recorded" "$NAT_TMP/fake.err" && ! grep -q NATsecret "$NAT_TMP/fake.err" ||
    nat_fail "the failure line: $(cat "$NAT_TMP/fake.err")"
# A store that does not take the scan fails the run after the report (exit 4), as `native
# report --store` does: the failure reached stderr only, and a CI job recording its leaks
# never saw the store was broken. With --json and -o the document is stdout's only content
# (the program's output goes to stderr, as without -o).
rc=0
"$LEAKRAY" native run --json --no-timing --store "$NAT_TMP/no/such/dir/x.db" -o "$NAT_TMP/l.lrn" \
    -- "$B/lost" >"$NAT_TMP/unstored.json" 2>"$NAT_TMP/unstored.err" || rc=$?
[ "$rc" = 4 ] || nat_fail "an unwritable store: exit $rc: $(cat "$NAT_TMP/unstored.err")"
python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); assert d["groups"], d' \
    "$NAT_TMP/unstored.json" || nat_fail "an unwritable store: stdout is no report"
grep -q "was not recorded" "$NAT_TMP/unstored.err" || nat_fail "no failure line"
[ -s "$NAT_TMP/l.lrn" ] || nat_fail "-o wrote no scan"
# thread leaks are leaks of the store too: a scan --fail-on-leak fails on them was stored clean
gcc -O0 -g -fno-omit-frame-pointer -pthread -o "$B/threadleak" "$NAT_PROGS/threadleak.c" ||
    nat_fail "gcc could not build threadleak.c"
"$LEAKRAY" native run --store "$NAT_TMP/thr.db" -- "$B/threadleak" >/dev/null 2>&1 || true
leaks_field "$NAT_TMP/thr.db" short_description >"$NAT_TMP/thr.txt"
grep -q "^thread ended, never joined, created in " "$NAT_TMP/thr.txt" ||
    nat_fail "no thread leak in the store: $(cat "$NAT_TMP/thr.txt")"
echo "native_store: ok ($SIG: 3 occurrences, one leak)"
