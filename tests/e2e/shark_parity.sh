#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# shark_parity.sh: `leakray analyze` against Shark, LeakCanary's analyzer. The goldens in
# tests/e2e/expected/shark/ are Shark's own analysis (scripts/golden-shark.sh) of the Android
# fixtures dialer.android-hprof and test-dump.hprof and of fresh dumps of the Java leak
# programs (tests/programs/leaks, demo, shark2, shark4), reduced by shark_parity.py to leaking
# objects, trace nodes (class, reference and its declaring class, Leaking status, `~~~`
# suspects), reasons, watch labels and signatures, plus Shark's size lines on the dialer and
# the two shark4 dumps, which `--size-model shark` must print. Every point where
# leakray and Shark differ is listed in expected/shark/known-differences.txt and explained in
# docs/design.md ("Parity with Shark"); any other difference fails. When the Shark jars are
# already fetched (scripts/shark-peer.sh --check; never fetched here) the same fresh dumps are
# also analysed by Shark live, which must match both the goldens and leakray.
set -euo pipefail
: "${LEAKRAY:?}" "${LEAKRAY_SRC:?}" "${LEAKRAY_BUILD:?}"
fx="${LEAKRAY_FIXTURES:-$LEAKRAY_SRC/../shared/fixtures}/hprof"
if [ ! -f "$fx/dialer.android-hprof" ] || [ ! -f "$fx/test-dump.hprof" ]; then
    if [ "${CI:-}" = true ]; then echo "FAIL: fixtures missing in $fx" >&2; exit 1; fi
    echo "SKIP: fixtures not found in $fx"
    exit 77
fi
command -v python3 >/dev/null || { echo "SKIP: python3 not installed"; exit 77; }
exp="$LEAKRAY_SRC/tests/e2e/expected/shark"
py="$LEAKRAY_SRC/tests/e2e/shark_parity.py"
known="$exp/known-differences.txt"
work="$LEAKRAY_BUILD/tmp/shark_parity"
rm -rf "$work"
mkdir -p "$work"
status=0

check() { # NAME DUMP [leakray options...]
    local name=$1 dump=$2; shift 2
    "$LEAKRAY" analyze "$dump" --json --no-timing "$@" > "$work/$name.lr.json"
    python3 "$py" norm-leakray "$work/$name.lr.json" > "$work/$name.lr.canon"
    python3 "$py" compare "$name" "$exp/$name.json" "$work/$name.lr.canon" "$known" \
        > "$work/$name.diff" || { status=1; echo "FAIL: $name differs from Shark:" >&2; }
    grep -v '^known ' "$work/$name.diff" || true
}

check dialer "$fx/dialer.android-hprof"
# --size-model shark on the ART dump: every size line as Shark 2.14 prints it
# (expected/shark/dialer.retaining.txt, scripts/golden-shark.sh): instances weigh their class
# record's instance size, and only the root kinds Shark indexes hold anything (the service's
# interned name string is its own). U+200B is Shark's terminal trick, left out.
"$LEAKRAY" analyze "$fx/dialer.android-hprof" --no-timing --no-suspects --size-model shark \
    > "$work/dialer.shark-sizes.out"
grep 'Retaining\|bytes retained' "$work/dialer.shark-sizes.out" > "$work/dialer.shark-sizes.txt"
sed 's/\xe2\x80\x8b//g' "$exp/dialer.retaining.txt" > "$work/dialer.shark-golden.txt"
diff -u "$work/dialer.shark-golden.txt" "$work/dialer.shark-sizes.txt" ||
    { status=1; echo "FAIL: dialer --size-model shark figures differ from Shark's" >&2; }
check test-dump "$fx/test-dump.hprof" --mapping "$fx/test-dump.map"

live=0
if "$LEAKRAY_SRC/scripts/shark-peer.sh" --check; then live=1; fi
if command -v javac >/dev/null && command -v java >/dev/null; then
    mkdir -p "$work/leaks" "$work/demo"
    javac -d "$work/leaks" "$LEAKRAY_SRC"/tests/programs/leaks/*.java
    java -cp "$work/leaks" com.example.LeakDemo "$work/leaks.hprof" > /dev/null
    javac -d "$work/demo" "$LEAKRAY_SRC"/tests/programs/demo/*.java
    java -Xmx256m -cp "$work/demo" demo.LeakDemo "$work/demo.hprof" > /dev/null
    mkdir -p "$work/sizes"
    javac -d "$work/sizes" "$LEAKRAY_SRC"/tests/programs/leaks/KeyedWeakReference.java \
        "$LEAKRAY_SRC"/tests/programs/shark2/SizesDemo.java
    java -cp "$work/sizes" com.example.sizes.SizesDemo "$work/sizes.hprof" > /dev/null
    javac -d "$work/sizes" "$LEAKRAY_SRC"/tests/programs/leaks/KeyedWeakReference.java \
        "$LEAKRAY_SRC"/tests/programs/shark2/ZeroUptime.java
    java -cp "$work/sizes" com.example.zero.ZeroUptime "$work/zero.hprof" > /dev/null
    javac -d "$work/sizes" "$LEAKRAY_SRC"/tests/programs/leaks/KeyedWeakReference.java \
        "$LEAKRAY_SRC"/tests/programs/shark2/ShapesDemo.java
    java -cp "$work/sizes" com.example.shapes.ShapesDemo "$work/shapes.hprof" > /dev/null
    # tests/programs/shark4: shapes no other program has (an executor's queue, an ArrayDeque,
    # an LRU map's key, an enum constant's body, a shutdown hook, the default uncaught
    # exception handler, an interface constant, an AtomicReference, a SoftReference only, a
    # control that dies) and watched objects at the edges (nested, a class, a loader, a
    # thread, a field a subclass hides, an array, a proxy's handler) and what sizes weigh
    # (boxed-value arrays, strings, a buffer two leaking objects share, a cycle, a main-thread
    # local), how map entries are named and ties between equally short paths broken, and JDK
    # machinery (a Cleaner action, an inherited ThreadLocal, Hashtable, a synchronized list,
    # List.of, the system properties)
    mkdir -p "$work/shark4"
    javac -d "$work/shark4" "$LEAKRAY_SRC"/tests/programs/leaks/KeyedWeakReference.java \
        "$LEAKRAY_SRC"/tests/programs/shark4/*.java
    java -cp "$work/shark4" com.example.fresh.FreshShapes "$work/fresh.hprof" > /dev/null
    java -cp "$work/shark4" com.example.edge.EdgeShapes "$work/edge.hprof" > /dev/null
    java -cp "$work/shark4" com.example.box.BoxShapes "$work/box.hprof" > /dev/null
    java -cp "$work/shark4" com.example.keys.KeyShapes "$work/keys.hprof" > /dev/null
    java -cp "$work/shark4" com.example.jdk.JdkShapes "$work/jdk.hprof" > /dev/null
    for name in fresh edge box keys jdk; do
        check "$name" "$work/$name.hprof"
        "$LEAKRAY" analyze "$work/$name.hprof" --no-timing --no-suspects --size-model shark \
            > "$work/$name.shark-sizes.out"
        python3 "$py" sizes-no-threads "$name" "$exp/$name.retaining.txt" \
            "$work/$name.shark-sizes.out" \
            "$known" > "$work/$name.sizes.diff" ||
            { status=1; echo "FAIL: $name --size-model shark figures differ from Shark's" >&2; }
        grep -v '^known ' "$work/$name.sizes.diff" || true
    done
    check leaks "$work/leaks.hprof"
    check demo "$work/demo.hprof"
    check sizes "$work/sizes.hprof"
    check zero "$work/zero.hprof"
    check shapes "$work/shapes.hprof"
    if [ "$live" = 1 ]; then
        for name in leaks demo sizes zero shapes fresh edge box keys jdk; do
            "$LEAKRAY_SRC/scripts/shark-peer.sh" --hprof "$work/$name.hprof" analyze --json \
                > "$work/$name.shark.json"
            python3 "$py" norm-shark "$work/$name.shark.json" > "$work/$name.shark.canon"
            # Shark is stable run to run: its live result is the golden
            diff -u "$exp/$name.json" "$work/$name.shark.canon" > "$work/$name.live.diff" ||
                { status=1; echo "FAIL: live Shark differs from $exp/$name.json" >&2;
                  head -40 "$work/$name.live.diff" >&2; }
            python3 "$py" compare "$name" "$work/$name.shark.canon" "$work/$name.lr.canon" \
                "$known" > "$work/$name.live" || { status=1; cat "$work/$name.live" >&2; }
            tail -1 "$work/$name.live" | sed 's/^/live: /'
        done
        for name in fresh edge box keys jdk; do
            "$LEAKRAY_SRC/scripts/shark-peer.sh" --hprof "$work/$name.hprof" analyze \
                > "$work/$name.shark.txt"
            python3 "$py" sizes-no-threads "$name" "$work/$name.shark.txt" \
                "$work/$name.shark-sizes.out" \
                "$known" > "$work/$name.live-sizes" ||
                { status=1; cat "$work/$name.live-sizes" >&2; }
            tail -1 "$work/$name.live-sizes" | sed 's/^/live: /'
        done
    else
        echo "note: Shark jars not fetched (scripts/shark-peer.sh --fetch); live check skipped"
    fi
else
    echo "note: javac/java not installed; Java program parity skipped"
fi
[ "$status" = 0 ] || exit 1
echo "shark_parity: ok"
