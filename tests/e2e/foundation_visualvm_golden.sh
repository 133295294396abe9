#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# foundation_visualvm_golden.sh: for every HotSpot HPROF fixture with a VisualVM histogram in
# tests/e2e/expected/visualvm/ (scripts/golden-visualvm.sh wrote them with VisualVM 2.1.5),
# `leakray histo --json` on the fixture as shipped (gzip/bzip2 read directly) must give the
# same instances and shallow bytes for every class. The 522 MB-inflated java_pid1884 fixture
# is left to the release build: under the sanitizers it alone would take most of a minute.
# oracle_jdk7_21_hprofagent.hprof holds two heap dumps; VisualVM reads the first, leakray
# loads the last by default, so that one is compared with --dump 0.
set -euo pipefail
. "$(dirname "$0")/foundation_lib.bash"
fdn_init foundation_visualvm_golden
fdn_fixtures
exp=$LEAKRAY_SRC/tests/e2e/expected/visualvm
n=0
failed=()
for tsv in "$exp"/*.histo.tsv; do
    name=$(basename "$tsv" .histo.tsv)
    f=$FDN_FIX/$name
    [ -f "$f" ] || fdn_fail "fixture $f named by $tsv is missing"
    if [ "$name" = java_pid1884.0001.hprof.gz ] && fdn_is_asan; then
        echo "note: $name skipped in the sanitizer build (522 MB inflated)"
        continue
    fi
    out=$FDN_TMP/$name.json
    extra=()
    [ "$name" = oracle_jdk7_21_hprofagent.hprof ] && extra=(--dump 0)
    if ! "$LEAKRAY" histo --json --no-timing "${extra[@]}" "$f" >"$out" 2>"$out.err"; then
        echo "FAIL: leakray histo $name exited nonzero: $(head -1 "$out.err")"
        failed+=("$name")
        continue
    fi
    python3 "$LEAKRAY_SRC/tests/e2e/foundation_histo_cmp.py" "$out" "$tsv" "$name" ||
        failed+=("$name")
    n=$((n + 1))
done
[ "$n" -gt 0 ] || fdn_fail "no golden histograms in $exp"
[ ${#failed[@]} -eq 0 ] || fdn_fail "histograms differ from VisualVM for: ${failed[*]}"
echo "PASS: $n fixtures match VisualVM's per-class instances and bytes"
