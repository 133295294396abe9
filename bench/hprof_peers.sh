#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# hprof_peers.sh: leakray beside the two fast HPROF analysers published on crates.io, on the
# same HotSpot dump in one run:
#   - hprof-slurp (one streaming pass: class histogram and largest allocations) against
#     `leakray histo`;
#   - hprof-analyzer 0.3.2 (MAT-style report: full object graph, dominator tree, retained
#     sizes of the biggest objects) against `leakray top` and `leakray analyze`.
# Each command runs RUNS times (default 3, page cache warm); medians of wall, CPU (user+sys)
# and own memory (RssAnon + RssShmem, bench/lib.sh), and the ratios peer / leakray.
# Then what both compute is compared, and each check prints agree or DIFFER:
#   - histogram: instance counts of every class in hprof-slurp's top 200, and the bytes of
#     its primitive-array classes (array bytes do not depend on a size model). Instance and
#     object-array bytes are not compared: hprof-slurp sizes objects with 16-byte headers
#     and 8-byte references, leakray with VisualVM's compressed-oops model;
#   - retained sizes: every object of hprof-analyzer's "biggest objects" and "big drops"
#     (class and retained bytes) must have an object of that class with the same retained
#     size in leakray (`leakray sql` over the same dominator tree as `top`). Class objects
#     and Thread objects are listed apart, with the class object's retained size in leakray:
#     the two size models give a class object a different own size, and MAT counts a
#     thread's stack-frame locals as retained by the thread (VisualVM: roots of their own).
# Dump: the ~120 MB, 2.3 M object dump of scripts/gen-big-dump.sh (cached in
# ${LEAKRAY_BENCH_DIR:-/tmp/leakray-bench}); BENCH_BIG=1 uses the ~1 GB one (SCALE 10) instead,
# DUMP=path any other dump.
# Peers, built outside the repository from crates.io on first use by scripts/rust-peers.sh
# (hprof-slurp 0.10.0, hprof-analyzer 0.3.2, with cargo; BENCH_NO_BUILD=1 builds nothing).
# HPROF_SLURP=path / HPROF_ANALYZER=path use other builds; else one on PATH, else the built
# one; a peer that cannot be had is skipped with a line saying so. Exit 1 when a tool fails
# or a check says DIFFER.
# usage: [BENCH_BIG=1 | DUMP=file] [RUNS=3] bench/hprof_peers.sh [path/to/leakray]
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
. "$src/bench/lib.sh"
lr=$(cd "$(dirname "${1:-$src/build/leakray}")" && pwd)/$(basename "${1:-$src/build/leakray}")
[ -x "$lr" ] || { echo "hprof_peers: no leakray at $lr" >&2; exit 2; }
runs=${RUNS:-3}
dir=$(bench_cache_dir)
out=$dir/hprof_peers
mkdir -p "$out"
if [ -n "${DUMP:-}" ]; then
    dump=$DUMP
elif [ "${BENCH_BIG:-}" = 1 ]; then
    dump=$("$src/scripts/gen-big-dump.sh" "$dir/big-x10.hprof" 10)
else
    dump=$("$src/scripts/gen-big-dump.sh" "$dir/big.hprof")
fi
size_kb=$(($(stat -c %s "$dump") / 1024))
cat "$dump" >/dev/null # every tool starts with the dump in the page cache
med() { printf '%s\n' "$@" | sort -g | sed -n "$((($# + 1) / 2))p"; }
status=0

# measure TAG CMD...: RUNS runs; medians into TAG_w, TAG_c, TAG_o (KiB); TAG_rc of the last.
measure() {
    local tag=$1 w=() c=() o=() i
    shift
    for ((i = 0; i < runs; i++)); do
        bench_measure m "$out/$tag.out" "$@"
        w+=("$m_wall") c+=("$m_cpu") o+=("$m_own")
    done
    printf -v "${tag}_w" '%s' "$(med "${w[@]}")"
    printf -v "${tag}_c" '%s' "$(med "${c[@]}")"
    printf -v "${tag}_o" '%s' "$(med "${o[@]}")"
    printf -v "${tag}_rc" '%s' "$m_rc"
    if [ "$m_rc" != 0 ]; then
        echo "hprof_peers: $* failed (exit $m_rc): $(tail -2 "$out/$tag.out.err")"
        status=1
    fi
}
row() { # LABEL TAG
    local w=${2}_w c=${2}_c o=${2}_o rc=${2}_rc
    printf '%-34s %8s %8s %9s %8s %5s\n' "$1" "${!w}" "${!c}" "$(bench_mb "${!o}")" \
        "$(bench_ratio "${!o}" "$size_kb")" "${!rc}"
}
ratio() { # LABEL PEER_TAG LR_TAG
    local pw=${2}_w pc=${2}_c lw=${3}_w lc=${3}_c
    printf '%-34s wall %sx, CPU %sx\n' "  $1" "$(bench_ratio "${!pw}" "${!lw}")" \
        "$(bench_ratio "${!pc}" "${!lc}")"
}
find_peer() { # VAR NAME: prints the peer's path or nothing
    local p=${!1:-}
    [ -z "$p" ] && p=$(command -v "$2" || true)
    if [ -z "$p" ]; then
        if [ "${BENCH_NO_BUILD:-0}" = 1 ]; then
            p=$("$src/scripts/rust-peers.sh" --check "$2" || true)
        else
            p=$("$src/scripts/rust-peers.sh" "$2" || true)
        fi
    fi
    [ -n "$p" ] && [ -x "$p" ] && printf '%s\n' "$p"
    return 0
}

objs=$("$lr" info --json --no-progress "$dump" | python3 -c \
    'import json,sys; print(json.load(sys.stdin)["objects"]["count"])')
printf 'dump: %s (%s MB, %s objects), medians of %s runs, load average %s\n' "$dump" \
    "$(bench_mb "$size_kb")" "$objs" "$runs" "$(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-34s %8s %8s %9s %8s %5s\n' command wall_s cpu_s own_MB own/file exit

# ---- histogram: hprof-slurp ----
measure lh "$lr" histo --json --no-timing --no-progress "$dump"
cp "$out/lh.out" "$out/leakray-histo.json"
row "leakray histo" lh
slurp=$(find_peer HPROF_SLURP hprof-slurp)
if [ -z "$slurp" ]; then
    echo "hprof-slurp: not found (HPROF_SLURP=path, on PATH, or built by scripts/rust-peers.sh): skipped"
else
    measure ps "$slurp" --top 200 --json -o "$out/slurp.json" "$dump"
    row "hprof-slurp $("$slurp" --version | awk '{print $2}') (histogram)" ps
    ratio "hprof-slurp / leakray histo" ps lh
    python3 - "$out/leakray-histo.json" "$out/slurp.json" <<'PY' || status=1
import json, sys
lr = {r["name"]: r for r in json.load(open(sys.argv[1]))["classes"]}
peer = json.load(open(sys.argv[2]))["heap"]["top_allocated_classes"]
same_n = [p for p in peer if p["class_name"] in lr
          and lr[p["class_name"]]["count"] == p["instance_count"]]
prim = [p for p in peer if p["class_name"].endswith("[]") and p["class_name"][:-2] in
        ("boolean", "byte", "char", "short", "int", "long", "float", "double")]
same_b = [p for p in prim if p["class_name"] in lr
          and lr[p["class_name"]]["shallow"] == p["allocation_size_bytes"]]
ok = len(same_n) == len(peer) and len(same_b) == len(prim)
print(f"  instance counts: {len(same_n)} of hprof-slurp's {len(peer)} classes equal; "
      f"primitive-array bytes: {len(same_b)} of {len(prim)} equal -> "
      f"{'agree' if ok else 'DIFFER'}")
for p in peer:
    if p not in same_n:
        got = lr.get(p["class_name"], {}).get("count", "absent")
        print(f"    {p['class_name']}: hprof-slurp {p['instance_count']}, leakray {got}")
sys.exit(0 if ok else 1)
PY
fi

# ---- retained sizes: hprof-analyzer ----
measure lt "$lr" top --json --no-timing --no-progress "$dump"
row "leakray top" lt
leakray_sum() {
    python3 -c 'import json, sys
print(format(json.load(open(sys.argv[1]))["reachable_objects"], ","))' "$out/leakray-top.json"
}
cp "$out/lt.out" "$out/leakray-top.json"
measure la "$lr" analyze --json --no-timing --no-progress "$dump"
row "leakray analyze" la
ha=$(find_peer HPROF_ANALYZER hprof-analyzer)
if [ -z "$ha" ]; then
    echo "hprof-analyzer: not found (HPROF_ANALYZER=path, on PATH, or built by scripts/rust-peers.sh): skipped"
    exit "$status"
fi
# The plain report (no `heap` subcommand) writes no cache beside the dump, so every run
# does the whole analysis.
measure pa "$ha" "$dump" "$out/analyzer.json" -f json
row "hprof-analyzer $("$ha" --version | awk '{print $2}') (report)" pa
ratio "hprof-analyzer / leakray top" pa lt
ratio "hprof-analyzer / leakray analyze" pa la
# leakray's side of the comparison: every object whose retained size is one of the peer's
# values (SQL over the same dominator tree as `top`), and the class objects of the peer's
# class names (a class object shows in the peer's report under the name of the class).
python3 - "$lr" "$dump" "$out/analyzer.json" "$(leakray_sum)" <<'PY' || status=1
import csv, io, json, subprocess, sys
lr, dump, rep_path, reachable = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
rep = json.load(open(rep_path))
rows = [(r["display_class"], r["retained"]) for r in rep["top"]["biggest_objects"]]
for r in rep["dominator_analysis"]["big_drops"]["rows"]:
    rows.append((r["display_class"], r["retained"]))
    rows.append((r["largest_child_class"], r["largest_child_retained"]))
rows = sorted({r for r in rows if r[0] and r[1] > 0}, key=lambda r: -r[1])

def sql(q):
    out = subprocess.run([lr, "sql", dump, "--no-progress", "--csv", "--max-rows", "0", q],
                         check=True, capture_output=True, text=True).stdout
    return list(csv.reader(io.StringIO(out)))[1:]

values = ",".join(str(v) for v in sorted({r[1] for r in rows}))
names = ",".join("'" + c.replace("'", "''") + "'" for c in sorted({r[0] for r in rows}))
have = {(c, int(v)) for c, v in sql(
    "SELECT coalesce(o.class, 'class ' || c.name), o.retained FROM objects o "
    "LEFT JOIN classes c ON o.kind = 'class' AND c.id = o.id "
    f"WHERE o.retained IN ({values})")}
class_obj = {c: int(v) for c, v in sql(
    "SELECT c.name, o.retained FROM classes c JOIN objects o ON o.id = c.id "
    f"WHERE c.name IN ({names})")}
agree, apart, differ = [], [], []
for cls, ret in rows:
    if (cls, ret) in have or ("class " + cls, ret) in have:
        agree.append((cls, ret))
    elif cls in ("java.lang.Class", "java.lang.Thread") or cls in class_obj:
        apart.append((cls, ret))
    else:
        differ.append((cls, ret))
print(f"  retained sizes: {len(agree)} of hprof-analyzer's {len(rows)} objects have an object "
      f"of the same class and retained size in leakray -> {'agree' if not differ else 'DIFFER'}")
why = {"java.lang.Class": "a class object, named by its class in another row",
       "java.lang.Thread": "MAT counts the thread's stack-frame locals as retained by it"}
for cls, ret in apart:
    mine = why.get(cls) or f"its class object retains {class_obj[cls]:,}"
    print(f"    apart (class object or thread): {cls} {ret:,}; leakray: {mine}")
for cls, ret in differ:
    print(f"    DIFFER: {cls} retained {ret:,}: no {cls} object of that size in leakray")
print(f"  objects: hprof-analyzer {rep['overview']['total_objects']:,} "
      f"({rep['overview']['unreachable_count']:,} unreachable); leakray: {reachable} reachable")
sys.exit(1 if differ else 0)
PY
exit "$status"
