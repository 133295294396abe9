#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# demo.sh: the `make demo` walk-through. Compiles and runs a small leaking Java program
# (tests/programs/demo/LeakDemo.java: screens registered with a static event bus and never
# unregistered, watched with leakcanary.KeyedWeakReference), which writes a real heap dump to
# <build>/demo/demo.hprof, then shows what leakray says about it. Builds nothing in C: the
# Makefile builds the CLI first and passes its path.
# usage: scripts/demo.sh [path/to/leakray]
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
leakray=${1:-$src/build/leakray}
[ -x "$leakray" ] || { echo "demo: no leakray binary at $leakray (run 'make' first)" >&2; exit 2; }
command -v javac >/dev/null || { echo "demo: javac not found (scripts/deps.sh demo)" >&2; exit 2; }
out=$(cd "$(dirname "$leakray")" && pwd)/demo
mkdir -p "$out"
rm -rf "$out/classes" "$out/demo.hprof"

if [ -t 1 ]; then b=$'\033[1m' e=$'\033[0m'; else b='' e=''; fi
say() { printf '\n%s== %s%s\n' "$b" "$*" "$e"; }

say "1. Run a Java program that leaks"
echo "LeakDemo opens five checkout screens; each registers a listener with a static EventBus"
echo "and never unregisters it. After each screen is destroyed it is watched with a"
echo "leakcanary.KeyedWeakReference; the program runs the GC and dumps the heap."
javac -d "$out/classes" "$src/tests/programs/demo/LeakDemo.java" \
    "$src/tests/programs/demo/KeyedWeakReference.java"
java -Xmx256m -cp "$out/classes" demo.LeakDemo "$out/demo.hprof"
ls -l "$out/demo.hprof"

say "2. leakray info: what the file is"
echo "Format, identifier size, object/class/root counts, and any anomalies counted while loading."
"$leakray" info "$out/demo.hprof"

say "3. leakray histo --top 10: where the bytes are, by class"
echo "The five leaked screens each hold a 256 KB preview, so byte[] dominates the shallow sizes."
"$leakray" histo --top 10 "$out/demo.hprof"

if "$leakray" analyze --help >/dev/null 2>&1; then
    say "4. leakray analyze: which watched objects leak, and why"
    echo "Retained KeyedWeakReference referents are the leaking objects; each trace is the shortest"
    echo "strong path from a GC root, with the suspect references underlined."
    "$leakray" analyze "$out/demo.hprof"
elif "$leakray" top --help >/dev/null 2>&1; then
    say "4. leakray top: the objects retaining the most memory"
    echo "Retained size = what the GC would free if the object became unreachable: the EventBus"
    echo "listener list keeps all five destroyed screens alive."
    "$leakray" top "$out/demo.hprof"
fi
say "done: the dump stays at $out/demo.hprof for more queries (leakray --help)"
