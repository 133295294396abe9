#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# top_visualvm.sh: `leakray top` against VisualVM 2.1.5's 100 biggest objects by retained
# size on every HotSpot fixture (tests/e2e/expected/visualvm/<fixture>.top100.tsv, made by
# scripts/golden-visualvm-top.sh). Every VisualVM row must appear in leakray's top 400 with
# the same id, retained size and shallow size, except the rows listed with a reason in
# top100-known-differences.tsv (docs/design.md, "Dominators and retained sizes"). Also
# checks that --model strong differs where weak referents matter, so the model switch works.
set -euo pipefail
: "${LEAKRAY:?}" "${LEAKRAY_SRC:?}" "${LEAKRAY_BUILD:?}"
fx="${LEAKRAY_FIXTURES:-$LEAKRAY_SRC/../shared/fixtures}/hprof"
exp="$LEAKRAY_SRC/tests/e2e/expected/visualvm"
if [ ! -f "$fx/RI.hprof" ]; then
    if [ "${CI:-}" = true ]; then echo "FAIL: fixtures missing in $fx" >&2; exit 1; fi
    echo "SKIP: fixtures not found in $fx"
    exit 77
fi
work="$LEAKRAY_BUILD/tmp/top_visualvm"
rm -rf "$work"
mkdir -p "$work"
export LC_ALL=C
known="$exp/top100-known-differences.tsv"
total=0 same=0 bad=0
for golden in "$exp"/*.top100.tsv; do
    name=$(basename "$golden" .top100.tsv)
    [ -f "$fx/$name" ] || { echo "FAIL: fixture $name missing" >&2; exit 1; }
    "$LEAKRAY" top --top 400 --no-timing "$fx/$name" >"$work/$name.txt"
    # leakray rows: "  N: 0xid retained shallow %heap class..." (numbers with separators)
    awk '$1 ~ /^[0-9]+:$/ { gsub(",", "", $3); gsub(",", "", $4); print $2 "\t" $3 "\t" $4 }' "$work/$name.txt" >"$work/$name.ours"
    out=$(awk -F'\t' -v name="$name" '
        FILENAME == ARGV[1] { if ($1 == name) known[$2] = 1; next }
        FILENAME == ARGV[2] { ret[$1] = $2; sh[$1] = $3; next }
        { n++
          if (($1 in ret) && ret[$1] == $3 && sh[$1] == $4) { ok++; if ($1 in known) stale++ }
          else if (!($1 in known)) { bad++; print "MISMATCH " name " " $1 " " $2 " visualvm=" $3 "/" $4 " leakray=" (($1 in ret) ? ret[$1] "/" sh[$1] : "absent") > "/dev/stderr" } }
        END { printf "%d %d %d\n", n, ok, bad }' "$known" "$work/$name.ours" "$golden")
    read -r n ok b <<<"$out"
    total=$((total + n)); same=$((same + ok)); bad=$((bad + b))
    echo "$name: $ok/$n rows equal"
done
echo "total: $same/$total rows equal to VisualVM, $bad unexplained"
[ "$bad" -eq 0 ] || { echo "FAIL: $bad rows differ from VisualVM without a documented reason" >&2; exit 1; }
[ "$total" -ge 1000 ] || { echo "FAIL: only $total golden rows compared" >&2; exit 1; }

# The strong model must answer differently on a dump with weak references in play.
"$LEAKRAY" top --top 5 --no-timing --model strong "$fx/hprof-32.bin" >"$work/strong.txt"
grep -q 'strong-reference model' "$work/strong.txt" || { echo "FAIL: --model strong" >&2; exit 1; }
if cmp -s <(awk '$1 ~ /^[0-9]+:$/' "$work/strong.txt") \
          <(awk '$1 ~ /^[0-9]+:$/' "$work/hprof-32.bin.txt" | head -5); then
    echo "FAIL: --model strong gives VisualVM's numbers on hprof-32.bin" >&2; exit 1
fi
echo "PASS"
