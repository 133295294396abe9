#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# golden-jdk25-ffm.sh: regenerates tests/data/jdk25/ffm.hprof.gz, a dump of
# tests/programs/ffm/FfmDump.java on JDK 25 (FFM arenas holding 50 MiB off the heap, a 10 MiB
# direct buffer, a closed arena), which tests/e2e/jdk25_dumps.sh checks the native sizes of.
# Needs JDK 25 (JDK25_HOME, default /usr/lib/jvm/temurin-25-jdk-amd64) and gzip.
# usage: scripts/golden-jdk25-ffm.sh
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
jdk=${JDK25_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}
data=$src/tests/data/jdk25
work=$(mktemp -d "${TMPDIR:-/tmp}/lr-golden-ffm.XXXXXX")
trap 'rm -rf "$work"' EXIT
"$jdk/bin/java" -version 2>&1 | grep -q ' version "25' ||
    { echo "golden-jdk25-ffm: $jdk is no JDK 25 (set JDK25_HOME)" >&2; exit 2; }
mkdir -p "$work/classes" "$data"
"$jdk/bin/javac" -d "$work/classes" "$src/tests/programs/ffm/FfmDump.java"
"$jdk/bin/java" -Xmx64m -cp "$work/classes" FfmDump "$work/ffm.hprof"
gzip -9 -n -c "$work/ffm.hprof" > "$data/ffm.hprof.gz"
ls -l "$data/ffm.hprof.gz"
