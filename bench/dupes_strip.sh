#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# dupes_strip.sh: times `leakray dupes`, `strip --mode shrink` and `strip --mode sanitize` on
# the ~120 MB benchmark dump (scripts/gen-big-dump.sh) beside `cp` of the same file, all from
# the page cache, and prints MB/s and the ratio to cp. Not a test.
# usage: bench/dupes_strip.sh [LEAKRAY] [DUMP]   (LEAKRAY default: build/leakray)
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
lr=${1:-$src/build/leakray}
dump=${2:-$("$src/scripts/gen-big-dump.sh")}
out=$(mktemp -d "${TMPDIR:-/tmp}/lr-bench-strip.XXXXXX")
trap 'rm -rf "$out"' EXIT
[ -x "$lr" ] || { echo "dupes_strip: no leakray at $lr" >&2; exit 2; }
size=$(stat -c %s "$dump")
cat "$dump" >/dev/null # page cache

# best of 3 wall-clock seconds of a command
best() {
    local b=
    for _ in 1 2 3; do
        local t0 t1
        t0=$(date +%s.%N)
        "$@" >/dev/null
        t1=$(date +%s.%N)
        b=$(python3 -c "import sys; t=float(sys.argv[2])-float(sys.argv[1]); b=sys.argv[3]; print(t if not b or t < float(b) else b)" "$t0" "$t1" "$b")
        rm -f "$out"/o.hprof
    done
    echo "$b"
}

printf 'dump: %s (%.1f MB)\n' "$dump" "$(python3 -c "print($size/1e6)")"
tcp=$(best cp "$dump" "$out/o.hprof")
tsan=$(best "$lr" strip "$dump" -o "$out/o.hprof" --mode sanitize)
tshr=$(best "$lr" strip "$dump" -o "$out/o.hprof" --mode shrink)
tdup=$(best "$lr" dupes "$dump" --no-timing)
"$lr" strip "$dump" -o "$out/s.hprof" --mode shrink >/dev/null
ssize=$(stat -c %s "$out/s.hprof")
python3 - "$size" "$ssize" "$tcp" "$tsan" "$tshr" "$tdup" <<'PY'
import sys
size, ssize = int(sys.argv[1]), int(sys.argv[2])
cp, san, shr, dup = map(float, sys.argv[3:])
mb = size / 1e6
for name, t in (("cp", cp), ("strip sanitize", san), ("strip shrink", shr), ("dupes (load+analysis)", dup)):
    print(f"{name:24s} {t:7.3f} s  {mb / t:8.1f} MB/s  {t / cp:5.2f}x cp")
print(f"shrink output: {ssize / 1e6:.1f} MB ({100 * ssize / size:.1f}% of input)")
PY

# Shark's strip-hprof (LeakCanary's HprofPrimitiveArrayStripper, which zeroes primitive array
# contents like --mode sanitize) on the same dump, JVM start included. Skipped, and the bench
# still succeeds, when the Shark jars are not fetched and cannot be (no network, no mvn/java).
peer=$src/scripts/shark-peer.sh
if "$peer" --check 2>/dev/null || timeout 300 "$peer" --fetch >/dev/null 2>&1; then
    tshk=$(best "$peer" --hprof "$dump" strip-hprof -o "$out/o.hprof")
    python3 - "$size" "$tsan" "$tshk" <<'PY'
import sys
mb = int(sys.argv[1]) / 1e6
san, shk = float(sys.argv[2]), float(sys.argv[3])
print(f"{'shark strip-hprof':24s} {shk:7.3f} s  {mb / shk:8.1f} MB/s  {shk / san:5.2f}x leakray sanitize")
PY
else
    echo "shark strip-hprof        skipped (scripts/shark-peer.sh could not fetch Shark)"
fi
