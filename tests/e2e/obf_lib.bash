# SPDX-License-Identifier: Apache-2.0
# obf_lib.bash: helpers sourced by tests/e2e/obf_*.sh (not a test itself: the build registers
# *.sh only). obf_init NAME compiles tests/programs/obf/a.java (an app with R8-style
# one-letter names) into a fresh scratch folder $OBF and runs it once, which writes two dumps
# of one process: $OBF/o1.hprof (a cart of 200 items) and $OBF/o2.hprof (1,200 items). It
# also writes $OBF/shop.map, the R8 mapping of that program in R8's own format (`#` JSON
# headers, line ranges), computed from the program's `// LINE` markers:
#   a -> com.example.shop.Checkout (Checkout.kt), method a -> snapshot, lines
#        SNAP-3..SNAP+3 -> 200..206; main lines FIRST-2..SECOND -> 100..;
#   b -> com.example.shop.Cart (field a -> items); c -> com.example.shop.Item (a -> price,
#        b -> history).
# obf_line MARKER prints the source line of `// LINE MARKER`. fail MSG exits 1.
set -euo pipefail
: "${LEAKRAY:?}" "${LEAKRAY_SRC:?}" "${LEAKRAY_BUILD:?}"
export LC_ALL=C

fail() {
    echo "FAIL: $*" >&2
    exit 1
}

obf_line() {
    grep -n "// LINE $1\$" "$LEAKRAY_SRC/tests/programs/obf/a.java" | cut -d: -f1
}

obf_init() {
    if ! command -v javac >/dev/null || ! command -v java >/dev/null ||
        ! command -v python3 >/dev/null; then
        [ "${CI:-}" = true ] && fail "javac/java/python3 required under CI=true"
        echo "SKIP: javac/java/python3 not installed"
        exit 77
    fi
    OBF=$LEAKRAY_BUILD/tmp/$1
    rm -rf "$OBF"
    mkdir -p "$OBF/classes"
    javac -g -d "$OBF/classes" "$LEAKRAY_SRC/tests/programs/obf/a.java" || fail "javac failed"
    java -cp "$OBF/classes" a "$OBF/o1.hprof" "$OBF/o2.hprof" || fail "the program failed"
    [ -s "$OBF/o2.hprof" ] || fail "no dumps written"
    local snap first second
    snap=$(obf_line snapshot)
    first=$(obf_line main-first)
    second=$(obf_line main-second)
    cat >"$OBF/shop.map" <<MAP
# compiler: R8
# compiler_version: 8.10.9-dev
# {"id":"com.android.tools.r8.mapping","version":"2.2"}
# pg_map_id: 0123456789abcdef
com.example.shop.Checkout -> a:
# {"id":"sourceFile","fileName":"Checkout.kt"}
    com.example.shop.Cart cart -> a
      # {"id":"com.android.tools.r8.residualsignature","signature":"Lb;"}
    $((first - 2)):$second:void main(java.lang.String[]):100:$((100 + second - first + 2)) -> main
    $((snap - 3)):$((snap + 3)):void snapshot(java.lang.String,com.example.shop.Cart):200:206 -> a
com.example.shop.Cart -> b:
    java.util.ArrayList items -> a
com.example.shop.Item -> c:
    int price -> a
    long[] history -> b
    1:3:void <init>(int):30:32 -> <init>
MAP
}
