#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# layout_flags.sh: shallow sizes under every object layout of a JDK 17 HotSpot: default,
# -XX:-UseCompressedClassPointers (a 16-byte header, and array elements from byte 24: the
# length word padded to 8 bytes up to JDK 21, 20 from JDK 22), -XX:-UseCompressedOops, and
# both off. tests/programs/layout/LayoutSizes.java holds arrays of every element type at
# lengths 0 to 9 and instances of five field layouts in one static array, dumps, and writes
# what the JVM says each takes (Unsafe's array base and scale; its class histogram for the
# instances). leakray's shallow size of every element of that array must be the JVM's.
set -euo pipefail
: "${LEAKRAY:?}" "${LEAKRAY_SRC:?}" "${LEAKRAY_BUILD:?}"
. "$LEAKRAY_SRC/tests/e2e/need_lib.bash"
need_tools javac java python3
fail() { echo "FAIL: $*" >&2; exit 1; }
W=$LEAKRAY_BUILD/tmp/layout_flags
rm -rf "$W"
mkdir -p "$W/classes"
# (sun.misc.Unsafe: javac warns that it is internal, which it is)
javac -nowarn -d "$W/classes" "$LEAKRAY_SRC/tests/programs/layout/LayoutSizes.java" 2>/dev/null
q="SELECT CAST(substr(e2.name, 2, length(e2.name) - 2) AS INTEGER), o.shallow
   FROM edges e1 JOIN edges e2 ON e2.src = e1.dst JOIN objects o ON o.id = e2.dst
   WHERE e1.name = 'ARRAYS' AND e1.kind = 'static' AND e2.kind = 'element'"
for mode in default noccp nocoops both; do
    case $mode in
    default) opts=() ;;
    noccp) opts=(-XX:-UseCompressedClassPointers) ;;
    nocoops) opts=(-XX:-UseCompressedOops) ;;
    both) opts=(-XX:-UseCompressedOops -XX:-UseCompressedClassPointers) ;;
    esac
    java "${opts[@]}" -Xmx64m -XX:+UseSerialGC -cp "$W/classes" LayoutSizes \
        "$W/$mode.hprof" "$W/$mode.jvm.txt" || fail "LayoutSizes under $mode"
    "$LEAKRAY" sql --csv --no-timing "$W/$mode.hprof" "$q" >"$W/$mode.csv" ||
        fail "sql exited $? on the $mode dump"
    python3 - "$W/$mode.jvm.txt" "$W/$mode.csv" "$mode" <<'PY' || fail "sizes under $mode"
import csv, sys
jvm = {}
for line in open(sys.argv[1]):
    i, cls, b = line.split()
    jvm[int(i)] = (cls, int(b))
rows = list(csv.reader(open(sys.argv[2])))[1:]
lr = {int(r[0]): int(r[1]) for r in rows}
assert len(jvm) == 105 and set(lr) == set(jvm), (len(jvm), sorted(set(jvm) ^ set(lr))[:5])
bad = [f"[{i}] {c}: leakray {lr[i]} B, JVM {b} B" for i, (c, b) in sorted(jvm.items())
       if lr[i] != b]
print(f"{sys.argv[3]}: {len(jvm)} objects, sizes as the JVM's" if not bad else
      f"{sys.argv[3]}: " + "\n".join(bad[:12]))
sys.exit(1 if bad else 0)
PY
    # histo's streaming pass sizes arrays as the graph does
    "$LEAKRAY" histo --csv --no-timing "$W/$mode.hprof" |
        grep -E '^[0-9]+,[0-9]+,[0-9]+,(float|short)\[\]$' | sort -t, -k4 | cut -d, -f3 \
        >"$W/$mode.stream"
    "$LEAKRAY" sql --csv --no-timing "$W/$mode.hprof" "SELECT sum(shallow) FROM objects
        WHERE class IN ('float[]', 'short[]') GROUP BY class ORDER BY class" | tail -n +2 \
        >"$W/$mode.graph"
    cmp -s "$W/$mode.stream" "$W/$mode.graph" ||
        fail "$mode: histo's arrays $(paste -sd' ' "$W/$mode.stream"), the graph's" \
            "$(paste -sd' ' "$W/$mode.graph")"
done
echo "layout_flags: ok"
