#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# golden-jdk25-stacks.sh: regenerates tests/data/jdk25/parked-stacks.hprof.gz and
# tests/e2e/expected/jdk25/parked-stacks.jvm-histo.txt: a dump of
# tests/programs/vthreads/ParkedStacks.java (300 parked virtual threads, 5 to 65 frames deep)
# on JDK 25 with its default layout, and the JVM's own class histogram taken just before it
# (jcmd GC.class_histogram): instances and bytes of the virtual threads' classes, which
# tests/e2e/jdk25_dumps.sh checks `histo` against (a StackChunk's size is its own). With
# `a128`, the same with -XX:ObjectAlignmentInBytes=128 into parked-stacks-a128.* (a chunk's
# fixed part is a multiple of the object alignment).
# Needs JDK 25 (JDK25_HOME, default /usr/lib/jvm/temurin-25-jdk-amd64) and gzip.
# usage: scripts/golden-jdk25-stacks.sh [a128]
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
jdk=${JDK25_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}
out=$src/tests/e2e/expected/jdk25
data=$src/tests/data/jdk25
work=$(mktemp -d "${TMPDIR:-/tmp}/lr-golden-jdk25s.XXXXXX")
trap 'rm -rf "$work"' EXIT
"$jdk/bin/java" -version 2>&1 | grep -q ' version "25' ||
    { echo "golden-jdk25-stacks: $jdk is no JDK 25 (set JDK25_HOME)" >&2; exit 2; }
mkdir -p "$work/classes" "$out" "$data"
"$jdk/bin/javac" -d "$work/classes" "$src/tests/programs/vthreads/ParkedStacks.java"
name=parked-stacks
flags=()
if [ "${1:-}" = a128 ]; then
    name=parked-stacks-a128
    flags=(-XX:ObjectAlignmentInBytes=128)
fi
"$jdk/bin/java" -Xmx256m "${flags[@]}" -cp "$work/classes" com.example.vthreads.ParkedStacks \
    "$work/$name.hprof" "$work/histo" > "$work/out" &
pid=$!
for _ in $(seq 300); do grep -q '^ready' "$work/out" && break; sleep 0.1; done
"$jdk/bin/jcmd" "$pid" GC.class_histogram > "$work/histo.all"
awk '$4 ~ /^(jdk\.internal\.vm\.StackChunk|java\.lang\.VirtualThread\$VThreadContinuation)$/ {print $2, $3, $4}' \
    "$work/histo.all" > "$out/$name.jvm-histo.txt"
mv "$work/histo.all" "$work/histo"
wait "$pid"
gzip -9 -n -c "$work/$name.hprof" > "$data/$name.hprof.gz"
ls -l "$data/$name.hprof.gz"
cat "$out/$name.jvm-histo.txt"
