#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# shark_parity.sh: the Shark parity table. Runs `leakray analyze` and Shark 2.14
# (scripts/shark-peer.sh, fetched from Maven Central on first use) on the same dumps in one run
# and compares their text reports group by group: leaks (application + library groups and
# traces), signatures equal, trace lines equal (every line of the shown trace except
# "Retaining" sizes), sizes equal ("bytes retained by leaking objects" and "Retaining" lines;
# by default, and with --size-model shark),
# group order equal, and the time each tool took (the ratio). Dumps: the Android fixtures
# dialer.android-hprof and test-dump.hprof (with its mapping), and fresh dumps of the Java leak
# programs tests/programs/leaks, demo and shark2 (SizesDemo, ZeroUptime, ShapesDemo). Not a test: the
# parity test is tests/e2e/shark_parity.sh.
# usage: bench/shark_parity.sh [LEAKRAY] [FIXTURES_DIR]
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
lr=${1:-$src/build/leakray}
fx=${2:-${LEAKRAY_FIXTURES:-$src/../shared/fixtures}}/hprof
peer=$src/scripts/shark-peer.sh
[ -x "$lr" ] || { echo "shark_parity: no leakray at $lr" >&2; exit 2; }
"$peer" --fetch > /dev/null
work=$(mktemp -d "${TMPDIR:-/tmp}/lr-bench-shark.XXXXXX")
trap '[ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT

mkdir -p "$work/c"
javac -d "$work/c/leaks" "$src"/tests/programs/leaks/*.java
java -cp "$work/c/leaks" com.example.LeakDemo "$work/leaks.hprof" > /dev/null
javac -d "$work/c/demo" "$src"/tests/programs/demo/*.java
java -Xmx256m -cp "$work/c/demo" demo.LeakDemo "$work/demo.hprof" > /dev/null
javac -d "$work/c/s2" "$src"/tests/programs/leaks/KeyedWeakReference.java \
    "$src"/tests/programs/shark2/*.java
java -cp "$work/c/s2" com.example.sizes.SizesDemo "$work/sizes.hprof" > /dev/null
java -cp "$work/c/s2" com.example.zero.ZeroUptime "$work/zero.hprof" > /dev/null
java -cp "$work/c/s2" com.example.shapes.ShapesDemo "$work/shapes.hprof" > /dev/null

# NAME DUMP [MAPPING]
run() {
    local name=$1 dump=$2 map=${3:-} t0 t1 t2
    local lrmap=() skmap=()
    [ -n "$map" ] && lrmap=(--mapping "$map") && skmap=(--obfuscation-mapping "$map")
    t0=$(date +%s.%N)
    "$lr" analyze "$dump" --no-timing --no-suspects "${lrmap[@]}" > "$work/$name.lr.txt"
    t1=$(date +%s.%N)
    "$lr" analyze "$dump" --no-timing --no-suspects --size-model shark "${lrmap[@]}" \
        > "$work/$name.lrs.txt"
    "$peer" --hprof "$dump" "${skmap[@]}" analyze > "$work/$name.shark.txt" 2> /dev/null
    t2=$(date +%s.%N)
    echo "$name $t0 $t1 $t2" >> "$work/times"
}
run dialer "$fx/dialer.android-hprof"
run test-dump "$fx/test-dump.hprof" "$fx/test-dump.map"
run leaks "$work/leaks.hprof"
run demo "$work/demo.hprof"
run sizes "$work/sizes.hprof"
run zero "$work/zero.hprof"
run shapes "$work/shapes.hprof"

python3 - "$work" <<'PY'
import re, sys
work = sys.argv[1]

def groups(path):
    """(signature, size lines, trace lines) per group, in report order."""
    out, cur = [], None
    for line in open(path, encoding="utf-8"):
        # U+200B starts Shark's leaking-object lines (its logcat trick); leakray writes it
        # on a terminal only
        line = line.rstrip("\n").replace("\u200b", "")
        if line.startswith("===") or line.endswith("LIBRARY LEAKS") or \
                line.endswith("UNREACHABLE OBJECTS"):
            cur = None
            continue
        m = re.match(r"^(\d+) bytes retained by leaking objects$", line)
        if m:
            cur = {"sig": None, "sizes": [line], "lines": []}
            out.append(cur)
            continue
        if line.startswith("Signature: "):
            if cur is None or cur["sig"] is not None:
                cur = {"sig": None, "sizes": [], "lines": []}
                out.append(cur)
            cur["sig"] = line[11:]
            continue
        if cur is None or cur["sig"] is None or not line:
            continue
        if "Retaining " in line:
            cur["sizes"].append(line)
        elif not line.startswith("Displaying only"):
            cur["lines"].append(line)
    return out

rows = []
times = {l.split()[0]: [float(x) for x in l.split()[1:]] for l in open(work + "/times")}
tot = {"groups": 0, "sig": 0, "lines": 0, "sizes": 0, "ssizes": 0}
for name in ["dialer", "test-dump", "leaks", "demo", "sizes", "zero", "shapes"]:
    a = groups("%s/%s.lr.txt" % (work, name))
    b = groups("%s/%s.shark.txt" % (work, name))
    sa = {g["sig"]: g for g in a}
    sb = {g["sig"]: g for g in b}
    common = [s for s in sb if s in sa]
    lines = sum(sa[s]["lines"] == sb[s]["lines"] for s in common)
    sizes = sum(sa[s]["sizes"] == sb[s]["sizes"] for s in common)
    ss = {g["sig"]: g for g in groups("%s/%s.lrs.txt" % (work, name))}
    ssizes = sum(s in ss and ss[s]["sizes"] == sb[s]["sizes"] for s in common)
    order = [g["sig"] for g in a] == [g["sig"] for g in b]
    t0, t1, t2 = times[name]
    rows.append((name, len(b), len(a), len(common), lines, sizes, ssizes,
                 "yes" if order else "no", t1 - t0, t2 - t1))
    tot["groups"] += len(b); tot["sig"] += len(common)
    tot["lines"] += lines; tot["sizes"] += sizes; tot["ssizes"] += ssizes
print("%-10s %6s %6s %9s %11s %9s %11s %6s %9s %9s %7s" % (
    "dump", "shark", "leakray", "sig equal", "lines equal", "sizes eq", "shark-model",
    "order", "leakray s", "shark s", "ratio"))
for r in rows:
    print("%-10s %6d %6d %9d %11d %9d %11d %6s %9.2f %9.2f %6.1fx" % (r + (r[9] / r[8],)))
print("total: %d Shark groups, %d signatures equal, %d with equal trace lines, %d with equal "
      "sizes (%d with --size-model shark)" % (tot["groups"], tot["sig"], tot["lines"],
                                              tot["sizes"], tot["ssizes"]))
PY
