# SPDX-License-Identifier: Apache-2.0
# foundation_lib.bash: helpers sourced by tests/e2e/foundation_*.sh (not a test itself: the
# build registers *.sh only). Provides:
#   fdn_init NAME        checks LEAKRAY/LEAKRAY_SRC/LEAKRAY_BUILD, makes $FDN_TMP (a fresh
#                        scratch folder under $LEAKRAY_BUILD/tmp/NAME) and sets FDN_PY
#   fdn_need_java        exits 77 (skip, loudly) without javac/java, 1 under CI=true
#   fdn_fixtures         sets FDN_FIX to the HPROF fixture folder or skips/fails like above
#   fdn_make_dump OUT [JVM-OPTS...]
#                        compiles tests/programs/foundation/*.java once and runs
#                        FoundationDump with the given JVM options, writing OUT
#   fdn_is_asan          true when $LEAKRAY is a sanitizer build (slow paths get smaller)
#   fdn_vvm              prints the VisualVM peer script path, or nothing when the peer or
#                        /usr/share/visualvm is absent
#   fdn_fail MSG         prints "FAIL: MSG" and exits 1
# Each check prints what it compared, so a failing ctest log says which number differed.

fdn_fail() {
    echo "FAIL: $*" >&2
    exit 1
}

fdn_skip() {
    if [ "${CI:-}" = true ]; then
        fdn_fail "$* (required under CI=true)"
    fi
    echo "SKIP: $*" >&2
    exit 77
}

fdn_init() {
    : "${LEAKRAY:?LEAKRAY must name the CLI}" "${LEAKRAY_SRC:?}" "${LEAKRAY_BUILD:?}"
    [ -x "$LEAKRAY" ] || fdn_fail "no CLI at $LEAKRAY"
    FDN_TMP=$LEAKRAY_BUILD/tmp/$1
    rm -rf "$FDN_TMP"
    mkdir -p "$FDN_TMP"
    command -v python3 >/dev/null || fdn_fail "python3 is needed for the JSON checks"
    export LC_ALL=C
}

fdn_need_java() {
    command -v javac >/dev/null && command -v java >/dev/null || fdn_skip "no JDK (javac/java)"
}

fdn_fixtures() {
    FDN_FIX=${LEAKRAY_FIXTURES:-$LEAKRAY_SRC/../shared/fixtures}/hprof
    [ -d "$FDN_FIX" ] || fdn_skip "no HPROF fixtures at $FDN_FIX"
}

fdn_make_dump() {
    local out=$1
    shift
    local cls=$FDN_TMP/classes
    if [ ! -d "$cls" ]; then
        javac -d "$cls" "$LEAKRAY_SRC"/tests/programs/foundation/*.java ||
            fdn_fail "javac failed"
    fi
    rm -f "$out"
    java -Xmx512m "$@" -cp "$cls" FoundationDump "$out" || fdn_fail "FoundationDump $* failed"
    [ -s "$out" ] || fdn_fail "no dump written to $out"
}

fdn_is_asan() {
    [[ $(ldd "$LEAKRAY" 2>/dev/null) == *lib[au][sb]san* ]]
}

fdn_vvm() {
    local peer=$LEAKRAY_SRC/../shared/peers/visualvm/run.sh
    if [ -f "$peer" ] && [ -d /usr/share/visualvm ]; then
        printf '%s\n' "$peer"
    fi
}
