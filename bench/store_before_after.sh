#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# store_before_after.sh: the leak store's verbs with a reference build of leakray (BEFORE) and
# this one (AFTER) side by side, in one run, on the same SQLite store: ingest of one analysed
# report (a new process each time; the report is `analyze --json` of the Android fixture
# dialer.android-hprof), and over a store of STORE_BENCH_REPORTS reports (default 20,000; 1,000
# signatures, three leaks a report, bulk-loaded as bench/store.sh does) `store leaks` in text
# and JSON, `store show`, `store trend --by version`, `store diff` and the dashboard
# (`report --db`). Runs are interleaved (before, after, before, ...); the figures are medians of
# wall and CPU time (user + system of the leakray process, from wait4) and the ratio
# AFTER/BEFORE of the CPU time (1.00 = unchanged; the steadier figure on a busy machine), and
# each build's peak resident memory (MB, GNU time's maximum RSS). With STORE_BENCH_CALLGRIND=1
# each command also runs once per build under valgrind's callgrind, whose instruction counts
# do not move with the machine's load. No
# peer: LeakCanary's leaks.db lives on a device. Not a test.
# usage: bench/store_before_after.sh BEFORE [AFTER]
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
before=$(realpath "${1:?usage: bench/store_before_after.sh BEFORE [AFTER]}")
after=$(realpath "${2:-$src/build/leakray}")
[ -x "$before" ] && [ -x "$after" ] || { echo "store_before_after: need two binaries" >&2; exit 2; }
fx="${LEAKRAY_FIXTURES:-$src/../shared/fixtures}"
export LEAKRAY_RULES_DIR="$src/rules"
W=$(mktemp -d "${TMPDIR:-/tmp}/lr-bench-store-ab.XXXXXX")
trap 'rm -rf "$W"' EXIT
N_REPORTS=${STORE_BENCH_REPORTS:-20000}
RUNS=${STORE_BENCH_RUNS:-7}

"$after" analyze --json --no-timing "$fx/hprof/dialer.android-hprof" >"$W/report.json" ||
    [ $? = 1 ]
db=$W/store.db
"$after" store ingest --db "$db" --at @1600000000 "$W/report.json" >/dev/null
python3 - "$db" "$N_REPORTS" <<'PY'
import hashlib, sqlite3, sys
c = sqlite3.connect(sys.argv[1])
n, ns = int(sys.argv[2]), 1000
sig = [hashlib.sha1(b"leak%d" % k).hexdigest() for k in range(ns)]
c.executemany("INSERT OR IGNORE INTO leak(signature, kind, short_description) VALUES (?,?,?)",
              [(sig[k], "application", "Holder%d.field" % k) for k in range(ns)])
rows, occ = [], []
for i in range(1, n + 1):
    h = hashlib.sha1(b"r%d" % i).hexdigest()
    rows.append((1000000 + i, h, h, "analyze", "ok", "bulk", "app%d" % (i % 3),
                 "%d.%d" % (1 + i % 5, i % 10), "dev%d" % (i % 50), 1700000000000 + i * 60000,
                 1700000000000 + i * 60000, 3, 3 * 4096))
    for j in range(3):
        occ.append((1000000 + i, sig[(i * 7 + j * 13) % ns], 1, 1024 + (i * j) % 8192, 3))
c.executemany("INSERT INTO report(id, ingest_hash, content_hash, kind, status, source, app,"
              " version, device, at, ingested_at, leak_count, retained_bytes)"
              " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)", rows)
c.executemany("INSERT INTO occurrence(report_id, signature, instances, retained_bytes,"
              " retained_objects) VALUES (?,?,?,?,?)", occ)
c.commit()
PY
# Rows loaded behind leakray's back have no running totals yet: prune recomputes them.
"$after" store prune --db "$db" --keep-days 36500 >/dev/null
sig=$(python3 -c 'import hashlib; print(hashlib.sha1(b"leak7").hexdigest()[:8])')

echo "load average: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores; $N_REPORTS reports," \
    "medians of $RUNS interleaved runs"
# One line per command: medians of BEFORE and AFTER, wall and CPU, CPU ratio. In the
# arguments, {db} is the store and {i} the run's number (so each ingest is a new report).
python3 - "$before" "$after" "$db" "$W" "$RUNS" "$sig" <<'PY'
import os, statistics, subprocess, sys, time
before, after, db, w, runs, sig = sys.argv[1:7]
runs = int(runs)
cmds = [
    ("store ingest (one report)", ["store", "ingest", "--db", w + "/ingest-{b}.db",
                                   "--at", "@17000000{i}", w + "/report.json"]),
    ("store leaks", ["store", "leaks", "--db", db]),
    ("store leaks --json", ["store", "leaks", "--db", db, "--json"]),
    ("store show", ["store", "show", "--db", db, sig]),
    ("store trend --by version", ["store", "trend", "--db", db, "--by", "version"]),
    ("store diff", ["store", "diff", "--db", db, "--from", "1.1", "--to", "5.9"]),
    ("report --db (dashboard)", ["report", "--db", db, "-o", w + "/dash-{b}.html"]),
]
def run(binary, tag, args, i):
    # GNU time reports the peak of leakray alone (a child forked from this script would
    # start with the script's own memory as its high-water mark); wait4 counts both.
    c = ["/usr/bin/time", "-f", "%M", binary] + [
        a.replace("{i}", "%02d" % i).replace("{b}", tag) for a in args]
    t0 = time.perf_counter()
    p = subprocess.Popen(c, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    err = p.stderr.read()
    _, status, ru = os.wait4(p.pid, 0)
    t1 = time.perf_counter()
    if status != 0:
        sys.exit("store_before_after: %s failed: %s" % (" ".join(c), err.decode()))
    kb = int(err.decode().strip().splitlines()[-1])
    return (t1 - t0) * 1000, (ru.ru_utime + ru.ru_stime) * 1000, kb / 1024
print("%-26s %9s %9s %10s %9s %6s %9s %8s" % ("command", "before_ms", "after_ms", "before_cpu",
                                              "after_cpu", "cpu_x", "before_MB", "after_MB"))
for name, args in cmds:
    res = {"before": [], "after": []}
    for i in range(runs):
        res["before"].append(run(before, "before", args, i))
        res["after"].append(run(after, "after", args, i))
    med = {k: [statistics.median(x[j] for x in v) for j in range(3)] for k, v in res.items()}
    ratio = med["after"][1] / med["before"][1] if med["before"][1] else float("nan")
    print("%-26s %9.1f %9.1f %10.1f %9.1f %6.2f %9.1f %8.1f" % (
        name, med["before"][0], med["after"][0], med["before"][1], med["after"][1], ratio,
        med["before"][2], med["after"][2]))
PY
if [ -n "${STORE_BENCH_CALLGRIND:-}" ]; then
    echo "instructions (callgrind, one run each):"
    printf '%-32s %14s %14s %7s\n' command before after ratio
    ir=()
    for bin in "$before" "$after"; do # ingest: each build into a store of its own
        "$after" store ingest --db "$W/cg-ingest-${#ir[@]}.db" --at @1600000000 "$W/report.json" \
            >/dev/null
        valgrind --tool=callgrind --callgrind-out-file=/dev/null "$bin" store ingest \
            --db "$W/cg-ingest-${#ir[@]}.db" --at @1600000001 "$W/report.json" \
            >/dev/null 2>"$W/cg.txt"
        ir+=("$(sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$W/cg.txt")")
    done
    printf '%-32s %14s %14s %7s\n' "store ingest (one report)" "${ir[0]}" "${ir[1]}" \
        "$(python3 -c "print('%.4f' % (${ir[1]} / ${ir[0]}))")"
    for cmd in "store leaks" "store leaks --json" "store show $sig" "store trend --by version" \
               "store diff --from 1.1 --to 5.9" "report -o $W/dash-cg.html"; do
        ir=()
        for bin in "$before" "$after"; do
            # shellcheck disable=SC2086 # the command's words
            valgrind --tool=callgrind --callgrind-out-file=/dev/null "$bin" $cmd --db "$db" \
                >/dev/null 2>"$W/cg.txt"
            ir+=("$(sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$W/cg.txt")")
        done
        printf '%-32s %14s %14s %7s\n' "${cmd%% -o *}" "${ir[0]}" "${ir[1]}" \
            "$(python3 -c "print('%.4f' % (${ir[1]} / ${ir[0]}))")"
    done
fi
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
