#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# golden-visualvm-top.sh: regenerates the 100 biggest objects by retained size that VisualVM
# 2.1.5 reports for every HotSpot HPROF fixture, the reference that tests/e2e/top_visualvm.sh
# compares `leakray top` against (docs/design.md, "Dominators and retained sizes"). Android
# dumps (JAVA PROFILE 1.0.3) are skipped: leakray sizes them with Shark's model. VisualVM
# cannot read gzip/bzip2, so compressed fixtures are inflated into a scratch folder first.
# Output: tests/e2e/expected/visualvm/<fixture>.top100.tsv, lines
# `0xid<TAB>class<TAB>retained<TAB>shallow` in VisualVM's order (largest retained first).
# usage: scripts/golden-visualvm-top.sh [fixture-name...]
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
fix=${LEAKRAY_FIXTURES:-$src/../shared/fixtures}/hprof
peer=${VISUALVM_PEER:-$src/../shared/peers/visualvm/run.sh}
out=$src/tests/e2e/expected/visualvm
[ -d "$fix" ] || { echo "golden-visualvm-top: no fixtures at $fix" >&2; exit 2; }
[ -f "$peer" ] || { echo "golden-visualvm-top: no peer at $peer" >&2; exit 2; }
mkdir -p "$out"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/golden-vvm-top.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

if [ $# -gt 0 ]; then names=("$@"); else
    names=()
    for f in "$fix"/*.hprof "$fix"/*.hprof.gz "$fix"/*.hprof.bz2 "$fix"/*.bin; do
        [ -f "$f" ] && names+=("$(basename "$f")")
    done
fi
export LC_ALL=C
for name in "${names[@]}"; do
    f=$fix/$name
    case $name in
        *.gz) plain=$tmp/${name%.gz}; gzip -dc "$f" >"$plain" ;;
        *.bz2) plain=$tmp/${name%.bz2}; bzip2 -dc "$f" >"$plain" ;;
        *) plain=$tmp/$name; cp "$f" "$plain" ;;
    esac
    if head -c 18 "$plain" | grep -q 'JAVA PROFILE 1.0.3'; then
        echo "golden-visualvm-top: $name is an Android dump, skipped" >&2
        rm -f "$plain"; continue
    fi
    echo "golden-visualvm-top: $name" >&2
    bash "$peer" "$plain" top 100 >"$tmp/raw.txt"
    grep -P '^0x[0-9a-f]+\t[^\t]+\t[0-9]+\t[0-9]+$' "$tmp/raw.txt" >"$out/$name.top100.tsv"
    grep '^retained_ms=' "$tmp/raw.txt" >&2 || true
    rm -rf "$plain" "$plain.hwcache"
done
