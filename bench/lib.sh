# SPDX-License-Identifier: Apache-2.0
# bench/lib.sh: helpers shared by the side-by-side benchmarks (sourced, not run).
#
#   bench_measure NAME OUTFILE CMD [ARG...]
#       Runs CMD with stdout to OUTFILE (stderr to OUTFILE.err) under /usr/bin/time -v and
#       sets, for NAME (letters/digits/_):
#         NAME_wall  wall-clock seconds (monotonic clock around the run)
#         NAME_rss   peak RSS in KiB as /usr/bin/time -v reports it (includes the mapped
#                    dump's page-cache pages)
#         NAME_cpu   user + system CPU seconds of CMD and its children (/usr/bin/time -v);
#                    steadier than wall time on a busy machine
#         NAME_own   "own memory": peak over 10 ms samples of RssAnon + RssShmem summed over
#                    every process below /usr/bin/time (KiB); file-backed pages of a mapped
#                    dump are not counted, a JVM's heap is
#         NAME_rc    exit status of CMD
#   bench_ratio A B    prints A/B with two decimals ("inf" when B is 0)
#   bench_mb KIB       prints KiB as MB with one decimal
#   bench_cache_dir    prints the scratch folder (LEAKRAY_BENCH_DIR, default /tmp/leakray-bench)
#
# The sampler is a short python3 loop, so a run shorter than ~10 ms may show no sample and
# report its own memory as the last value seen (0 if none).

bench_cache_dir() {
    local d=${LEAKRAY_BENCH_DIR:-/tmp/leakray-bench}
    mkdir -p "$d"
    printf '%s\n' "$d"
}

bench_measure() {
    local name=$1 out=$2
    shift 2
    local res
    res=$(python3 - "$out" "$@" <<'PY'
import os, subprocess, sys, time

out = sys.argv[1]
cmd = sys.argv[2:]
tfile = out + ".time"

def children(pid):
    kids = []
    try:
        for tid in os.listdir(f"/proc/{pid}/task"):
            try:
                with open(f"/proc/{pid}/task/{tid}/children") as f:
                    kids.extend(int(x) for x in f.read().split())
            except OSError:
                pass
    except OSError:
        pass
    return kids

def own_kib(pid):
    total = 0
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("RssAnon:") or line.startswith("RssShmem:"):
                total += int(line.split()[1])
    return total

with open(out, "wb") as so, open(out + ".err", "wb") as se:
    t0 = time.monotonic()
    p = subprocess.Popen(["/usr/bin/time", "-v", "-o", tfile] + cmd, stdout=so, stderr=se)
    peak = 0
    while p.poll() is None:
        total = 0
        todo = children(p.pid)
        while todo:
            pid = todo.pop()
            try:
                total += own_kib(pid)
            except (OSError, ValueError):
                continue
            todo.extend(children(pid))
        peak = max(peak, total)
        time.sleep(0.01)
    wall = time.monotonic() - t0

rss = 0
cpu = 0.0
with open(tfile) as f:
    for line in f:
        if "Maximum resident set size" in line:
            rss = int(line.rsplit(":", 1)[1])
        elif "User time (seconds)" in line or "System time (seconds)" in line:
            cpu += float(line.rsplit(":", 1)[1])
print(f"{wall:.3f} {rss} {peak} {p.returncode} {cpu:.2f}")
PY
) || return 1
    local w r o c u
    read -r w r o c u <<<"$res"
    printf -v "${name}_wall" '%s' "$w"
    printf -v "${name}_rss" '%s' "$r"
    printf -v "${name}_own" '%s' "$o"
    printf -v "${name}_rc" '%s' "$c"
    printf -v "${name}_cpu" '%s' "$u"
}

bench_ratio() {
    python3 -c 'import sys; a, b = float(sys.argv[1]), float(sys.argv[2]); print("inf" if b == 0 else f"{a / b:.2f}")' "$1" "$2"
}

bench_mb() {
    python3 -c 'import sys; print(f"{int(sys.argv[1]) / 1024:.1f}")' "$1"
}
