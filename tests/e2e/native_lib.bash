# SPDX-License-Identifier: Apache-2.0
# native_lib.bash: helpers sourced by tests/e2e/native_*.sh and scripts/golden-native.sh (not
# a test itself: the build registers *.sh only). Provides:
#   nat_init NAME        checks LEAKRAY/LEAKRAY_SRC/LEAKRAY_BUILD, makes $NAT_TMP and sets
#                        NAT_PROGS (tests/programs/native), NAT_LIB (the monitor library)
#   nat_build [CC FLAGS] compiles every test program (and libplugin.so) into $NAT_TMP/bin,
#                        or with CC and FLAGS into $NAT_TMP/bin-<tag> (see nat_build_lsan)
#   nat_leakray PROG     runs PROG under `leakray native run --json` and prints one line
#                        "direct_blocks direct_bytes indirect_blocks indirect_bytes"
#   nat_lsan PROG        the same four numbers from LeakSanitizer (clang-14 -fsanitize=leak)
#   nat_valgrind PROG    "definite_blocks definite_bytes indirect_blocks indirect_bytes
#                        possible_blocks possible_bytes" from valgrind --leak-check=full
#   nat_fail MSG / nat_skip MSG
# Every program is run with the plugin path as its one argument (dlopen.c uses it; the
# others ignore it).
NAT_NAMES="lost list cycle interior regs stack tls threads handoff aligned reuse forks dlopen noleak stale staleret tiny corexit recycled badlink pexit"

nat_fail() {
    echo "FAIL: $*" >&2
    exit 1
}

nat_skip() {
    if [ "${CI:-}" = true ]; then
        nat_fail "$* (required under CI=true)"
    fi
    echo "SKIP: $*" >&2
    exit 77
}

nat_init() {
    : "${LEAKRAY:?LEAKRAY must name the CLI}" "${LEAKRAY_SRC:?}" "${LEAKRAY_BUILD:?}"
    [ -x "$LEAKRAY" ] || nat_fail "no CLI at $LEAKRAY"
    NAT_TMP=$LEAKRAY_BUILD/tmp/$1
    rm -rf "$NAT_TMP"
    mkdir -p "$NAT_TMP"
    NAT_PROGS=$LEAKRAY_SRC/tests/programs/native
    NAT_LIB=$(dirname "$LEAKRAY")/libleakray_native.so
    [ -f "$NAT_LIB" ] || nat_fail "no monitor library at $NAT_LIB"
    command -v python3 >/dev/null || nat_fail "python3 is needed for the JSON checks"
    command -v gcc >/dev/null || nat_fail "gcc is needed to build the test programs"
    export LC_ALL=C
    # The programs run without the sanitizer runtime the CLI may carry.
    unset ASAN_OPTIONS UBSAN_OPTIONS LSAN_OPTIONS
}

# nat_build DIR CC FLAGS...: the test programs, built for one tool.
nat_build() {
    local dir=$1 cc=$2
    shift 2
    mkdir -p "$dir"
    local p
    for p in $NAT_NAMES; do
        "$cc" -O0 -g -fno-omit-frame-pointer -pthread "$@" -o "$dir/$p" "$NAT_PROGS/$p.c" -ldl ||
            nat_fail "$cc could not build $p.c"
    done
    "$cc" -shared -fPIC -O0 -g -o "$dir/libplugin.so" "$NAT_PROGS/plugin.c" ||
        nat_fail "$cc could not build plugin.c"
}

nat_leakray() {
    local dir=$1 p=$2
    (cd "$dir" && timeout 60 "$LEAKRAY" native run --json --no-timing -- "./$p" ./libplugin.so) \
        >"$NAT_TMP/$p.leakray.json" || nat_fail "leakray native run $p failed"
    python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["capture"]["ok"], "thread capture failed"
print(d["direct"]["blocks"], d["direct"]["bytes"], d["indirect"]["blocks"], d["indirect"]["bytes"])
' "$NAT_TMP/$p.leakray.json" || nat_fail "bad report for $p"
}

nat_lsan() {
    local dir=$1 p=$2
    (cd "$dir" && LSAN_OPTIONS=exitcode=0 timeout 60 "./$p" ./libplugin.so) \
        2>"$NAT_TMP/$p.lsan.txt" >/dev/null || nat_fail "LeakSanitizer run of $p failed"
    awk '/^(Direct|Indirect) leak of/ {n[$1] += $7; b[$1] += $4}
         END {printf "%d %d %d %d\n", n["Direct"], b["Direct"], n["Indirect"], b["Indirect"]}' \
        "$NAT_TMP/$p.lsan.txt"
}

nat_valgrind() {
    local dir=$1 p=$2
    (cd "$dir" && timeout 120 valgrind --leak-check=full "./$p" ./libplugin.so) \
        2>"$NAT_TMP/$p.valgrind.txt" >/dev/null || nat_fail "valgrind run of $p failed"
    # Only the first process's summary (a forked child has its own pid prefix).
    awk 'NR == 1 {split($1, a, "=="); pid = a[2]}
         index($1, "==" pid "==") != 1 {next}
         /definitely lost:/ {gsub(",", ""); d = $4 " " $7}
         /indirectly lost:/ {gsub(",", ""); i = $4 " " $7}
         /possibly lost:/ {gsub(",", ""); q = $4 " " $7}
         END {split(d, x, " "); split(i, y, " "); split(q, z, " ");
              printf "%d %d %d %d %d %d\n", x[2], x[1], y[2], y[1], z[2], z[1]}' \
        "$NAT_TMP/$p.valgrind.txt"
}
