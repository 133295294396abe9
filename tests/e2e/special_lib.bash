# SPDX-License-Identifier: Apache-2.0
# special_lib.bash: helpers sourced by tests/e2e/special_*.sh (not a test itself: the build
# registers *.sh only). Builds on foundation_lib.bash (fdn_init, fdn_fail, fdn_skip, ...) and
# adds:
#   sp_make_dump OUT [BALLAST_MB [norings]]
#       compiles tests/programs/special/*.java (android.graphics.Bitmap + SpecialDump) into
#       $FDN_TMP/classes once and writes a HotSpot dump with HotSpotDiagnosticMXBean
#   sp_json FILE PYTHON-EXPR...  evaluates assertions on a JSON file (variable `j`)
# shellcheck source=foundation_lib.bash
. "$LEAKRAY_SRC/tests/e2e/foundation_lib.bash"

sp_make_dump() {
    local out=$1
    shift
    local cls=$FDN_TMP/classes
    if [ ! -d "$cls" ]; then
        javac -d "$cls" "$LEAKRAY_SRC"/tests/programs/special/*.java || fdn_fail "javac failed"
    fi
    rm -f "$out"
    java -Xmx512m -cp "$cls" SpecialDump "$out" "$@" || fdn_fail "SpecialDump $* failed"
    [ -s "$out" ] || fdn_fail "no dump written to $out"
}

# sp_check DESCRIPTION PYTHON-CONDITION (with j = the JSON of $SP_JSON)
sp_check() {
    python3 - "$SP_JSON" "$2" "$1" <<'PY' || exit 1
import json, sys
j = json.load(open(sys.argv[1]))
ok = eval(sys.argv[2])
print(("ok: " if ok else "FAIL: ") + sys.argv[3], file=sys.stderr)
sys.exit(0 if ok else 1)
PY
}
