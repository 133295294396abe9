#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# histo_visualvm.sh: for every HotSpot fixture with a VisualVM 2.1.5 histogram in
# tests/e2e/expected/visualvm/, `leakray histo` reports the same instance count and shallow
# bytes for every class (VisualVM leaves class objects out; leakray lists them as one
# "<class objects>" row, excluded here). VisualVM opens the first heap dump of a multi-dump
# file, leakray the last by default, so files listed in FIRST_DUMP are read with --dump 0.
set -euo pipefail
. "$(dirname "$0")/lib/common.bash"
cli_init histo-vvm
cli_fixtures
ref=$LEAKRAY_SRC/tests/e2e/expected/visualvm
FIRST_DUMP=" oracle_jdk7_21_hprofagent.hprof " # two HEAP_DUMP records (fixtures/SOURCES.md)
n=0
for want in "$ref"/*.histo.tsv; do
    name=$(basename "$want" .histo.tsv)
    [ -f "$FIX/$name" ] || continue
    dump=()
    case $FIRST_DUMP in *" $name "*) dump=(--dump 0) ;; esac
    run histo --no-timing --json --sort name "${dump[@]}" "$FIX/$name"
    expect_rc 0
    python3 - "$T/out" "$want" "$name" <<'PY' || fail "$name: histogram differs from VisualVM"
import json, sys
d = json.load(open(sys.argv[1]))
got = {c["name"]: (c["count"], c["shallow"]) for c in d["classes"] if c["name"] != "<class objects>"}
want = {}
for line in open(sys.argv[2]):
    name, count, size = line.rstrip("\n").split("\t")
    want[name] = (int(count), int(size))
bad = [(k, want.get(k), got.get(k)) for k in sorted(set(want) | set(got)) if want.get(k) != got.get(k)]
for k, w, g in bad[:10]:
    print(f"{sys.argv[3]}: {k}: VisualVM {w}, leakray {g}", file=sys.stderr)
sys.exit(1 if bad else 0)
PY
    n=$((n + 1))
done
[ "$n" -gt 0 ] || fail "no fixture compared"
echo "histo_visualvm: $n fixtures match VisualVM"
