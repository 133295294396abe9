#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# golden-shark.sh: regenerates tests/e2e/expected/shark/*.json, Shark's analysis (through
# scripts/shark-peer.sh, same defaults as shark-cli analyze) reduced by
# tests/e2e/shark_parity.py to what is stable across runs: leaking objects, trace nodes,
# statuses, suspects, signatures. Inputs: the Android fixtures dialer.android-hprof and
# test-dump.hprof (with its R8 mapping), and fresh dumps of the two Java leak programs
# (tests/programs/leaks, tests/programs/demo, tests/programs/shark2, tests/programs/shark3,
# tests/programs/shapes4, tests/programs/shark4), whose ids and timings change per run but
# whose paths and signatures do not; for sizes, shark2 and shark4, Shark's size lines
# (NAME.retaining.txt). tests/e2e/shark_parity.sh checks leakray against these.
# Needs network on first use (Maven Central), java, javac, python3.
# usage: scripts/golden-shark.sh [FIXTURES_DIR]
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
fx=${1:-${LEAKRAY_FIXTURES:-$src/../shared/fixtures}}/hprof
out=$src/tests/e2e/expected/shark
py=$src/tests/e2e/shark_parity.py
peer=$src/scripts/shark-peer.sh
work=$(mktemp -d "${TMPDIR:-/tmp}/lr-golden-shark.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$out"
"$peer" --fetch

golden() { # NAME ARGS...
    local name=$1; shift
    "$peer" "$@" analyze --json > "$work/$name.json"
    python3 "$py" norm-shark "$work/$name.json" > "$out/$name.json"
    echo "golden-shark: $out/$name.json"
}

golden dialer --hprof "$fx/dialer.android-hprof"
# Shark's size lines on the ART dump, which `leakray analyze --size-model shark` must print
"$peer" --hprof "$fx/dialer.android-hprof" analyze | grep 'Retaining\|bytes retained' \
    > "$out/dialer.retaining.txt"
golden test-dump --hprof "$fx/test-dump.hprof" --obfuscation-mapping "$fx/test-dump.map"

mkdir -p "$work/leaks" "$work/demo"
javac -d "$work/leaks" "$src"/tests/programs/leaks/*.java
java -cp "$work/leaks" com.example.LeakDemo "$work/leaks.hprof" > /dev/null
golden leaks --hprof "$work/leaks.hprof"
javac -d "$work/demo" "$src"/tests/programs/demo/*.java
java -Xmx256m -cp "$work/demo" demo.LeakDemo "$work/demo.hprof" > /dev/null
golden demo --hprof "$work/demo.hprof"
mkdir -p "$work/sizes"
javac -d "$work/sizes" "$src"/tests/programs/leaks/KeyedWeakReference.java \
    "$src"/tests/programs/shark2/SizesDemo.java
java -cp "$work/sizes" com.example.sizes.SizesDemo "$work/sizes.hprof" > /dev/null
golden sizes --hprof "$work/sizes.hprof"
# Shark's size lines on that dump, which `leakray analyze --size-model shark` must print
"$peer" --hprof "$work/sizes.hprof" analyze | grep 'Retaining\|bytes retained' \
    > "$out/sizes.retaining.txt"
javac -d "$work/sizes" "$src"/tests/programs/leaks/KeyedWeakReference.java \
    "$src"/tests/programs/shark2/ZeroUptime.java
java -cp "$work/sizes" com.example.zero.ZeroUptime "$work/zero.hprof" > /dev/null
golden zero --hprof "$work/zero.hprof"
javac -d "$work/sizes" "$src"/tests/programs/leaks/KeyedWeakReference.java \
    "$src"/tests/programs/shark2/ShapesDemo.java
java -cp "$work/sizes" com.example.shapes.ShapesDemo "$work/shapes.hprof" > /dev/null
golden shapes --hprof "$work/shapes.hprof"
javac -d "$work/sizes" "$src"/tests/programs/leaks/KeyedWeakReference.java \
    "$src"/tests/programs/shark3/MoreShapes.java
java -cp "$work/sizes" com.example.more.MoreShapes "$work/more.hprof" > /dev/null
golden more --hprof "$work/more.hprof"
mkdir -p "$work/four" "$work/driver"
javac -d "$work/four" "$src"/tests/programs/leaks/KeyedWeakReference.java \
    "$src"/tests/programs/shapes4/FourShapes.java
javac -d "$work/driver" "$src"/tests/programs/shapes4/driver/FakeDriver.java
java -cp "$work/four" com.example.four.FourShapes "$work/four.hprof" "file:$work/driver/" \
    > /dev/null
golden four --hprof "$work/four.hprof"
mkdir -p "$work/shark4"
javac -d "$work/shark4" "$src"/tests/programs/leaks/KeyedWeakReference.java \
    "$src"/tests/programs/shark4/*.java
for prog in fresh:com.example.fresh.FreshShapes edge:com.example.edge.EdgeShapes \
        box:com.example.box.BoxShapes keys:com.example.keys.KeyShapes \
        jdk:com.example.jdk.JdkShapes; do
    name=${prog%%:*}
    java -cp "$work/shark4" "${prog#*:}" "$work/$name.hprof" > /dev/null
    golden "$name" --hprof "$work/$name.hprof"
    # Shark's size lines, which `leakray analyze --size-model shark` must print (a thread
    # node's marked: its figures change from run to run)
    "$peer" --hprof "$work/$name.hprof" analyze > "$work/$name.shark.txt"
    python3 "$py" size-lines "$work/$name.shark.txt" > "$out/$name.retaining.txt"
done
