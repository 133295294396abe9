#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# golden-jdk25.sh: regenerates the JDK 25 dump fixture tests/data/jdk25/vthreads-coh.hprof.gz
# and its goldens in tests/e2e/expected/jdk25/, so that CI, which runs JDK 17 only, checks a
# dump of a current JDK (tests/e2e/jdk25_dumps.sh). The dump is of
# tests/programs/vthreads/VirtualLeaks.java (leaks held by a parked and a running virtual
# thread, a virtual thread's ThreadLocal and a static) on JDK 25 with compact object headers
# (-XX:+UseCompactObjectHeaders, 8-byte headers). Goldens: Shark 2.14's analysis of that very
# dump reduced by tests/e2e/shark_parity.py (vthreads-coh.json), its size lines
# (vthreads-coh.retaining.txt) and the order of the traces its text shows (vthreads-coh.order.txt,
# one per group), and the JVM's own class histogram of the program's classes taken just before
# the dump (vthreads-coh.jvm-histo.txt: instances and bytes).
# Needs JDK 25 (JDK25_HOME, default /usr/lib/jvm/temurin-25-jdk-amd64), python3, gzip and Shark
# (scripts/shark-peer.sh: network on first use).
# usage: scripts/golden-jdk25.sh
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
jdk=${JDK25_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}
out=$src/tests/e2e/expected/jdk25
data=$src/tests/data/jdk25
py=$src/tests/e2e/shark_parity.py
peer=$src/scripts/shark-peer.sh
work=$(mktemp -d "${TMPDIR:-/tmp}/lr-golden-jdk25.XXXXXX")
trap 'rm -rf "$work"' EXIT
"$jdk/bin/java" -version 2>&1 | grep -q ' version "25' ||
    { echo "golden-jdk25: $jdk is no JDK 25 (set JDK25_HOME)" >&2; exit 2; }
"$peer" --fetch
mkdir -p "$work/classes" "$out" "$data"
"$jdk/bin/javac" -d "$work/classes" "$src/tests/programs/leaks/KeyedWeakReference.java" \
    "$src/tests/programs/vthreads/VirtualLeaks.java"
name=vthreads-coh
# the histogram is taken from outside (jcmd) while the program waits: a program taking its
# own (the DiagnosticCommand MBean) loads JMX and makes the dump a third bigger
"$jdk/bin/java" -XX:+UseCompactObjectHeaders -cp "$work/classes" \
    com.example.vthreads.VirtualLeaks "$work/$name.hprof" "$work/histo" > "$work/out" &
pid=$!
for _ in $(seq 300); do grep -q '^ready' "$work/out" && break; sleep 0.1; done
"$jdk/bin/jcmd" "$pid" GC.class_histogram > "$work/histo.all"
# instances and bytes of the program's classes and the watcher's (not its lambdas: they are
# named by the JVM's run-time address)
awk '($4 ~ /^(com\.example\.vthreads\.|leakcanary\.)/ && $4 !~ /Lambda/) {print $2, $3, $4}' \
    "$work/histo.all" > "$out/$name.jvm-histo.txt"
mv "$work/histo.all" "$work/histo"
wait "$pid"
gzip -9 -n -c "$work/$name.hprof" > "$data/$name.hprof.gz"
"$peer" --hprof "$work/$name.hprof" analyze --json > "$work/$name.shark.json"
python3 "$py" norm-shark "$work/$name.shark.json" > "$out/$name.json"
"$peer" --hprof "$work/$name.hprof" analyze > "$work/$name.shark.txt"
python3 "$py" size-lines "$work/$name.shark.txt" > "$out/$name.retaining.txt"
grep -o 'key = vt-[0-9]*' "$work/$name.shark.txt" > "$out/$name.order.txt"
ls -l "$data/$name.hprof.gz"
echo "golden-jdk25: $out/$name.{json,retaining.txt,order.txt,jvm-histo.txt}"
