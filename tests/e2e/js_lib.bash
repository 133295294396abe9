# SPDX-License-Identifier: Apache-2.0
# js_lib.bash: helpers for the tests/e2e/js_*.sh scripts (sourced). They run Node programs
# from tests/programs/js/ that write .heapsnapshot files into $LEAKRAY_BUILD/tmp/<test>, run
# leakray with --json --no-timing, and check the JSON with Python expressions:
#   js_init NAME         scratch dir in $JS_TMP; skips (77) without node or python3
#   js_check DESC EXPR   EXPR sees j (the JSON in $JS_JSON) and helpers:
#                        cl(title) -> clusters with that title, chain(c) -> "a.b[]" text
#   js_golden FILE NAME  compares FILE with tests/e2e/expected/js/NAME
#                        (LEAKRAY_UPDATE_GOLDEN=1 rewrites it)
#   js_finish            exit status: 1 if any check failed
JS_FAILS=0

js_init() {
    : "${LEAKRAY:?}" "${LEAKRAY_SRC:?}" "${LEAKRAY_BUILD:?}"
    if ! command -v node >/dev/null 2>&1; then
        echo "SKIP: node is not installed"
        exit 77
    fi
    if ! command -v python3 >/dev/null 2>&1; then
        echo "SKIP: python3 is not installed"
        exit 77
    fi
    JS_TMP=$LEAKRAY_BUILD/tmp/$1
    rm -rf "$JS_TMP"
    mkdir -p "$JS_TMP"
}

js_check() {
    local desc=$1 expr=$2
    if python3 - "$JS_JSON" "$expr" <<'PY'; then
import json, sys
j = json.load(open(sys.argv[1]))
def cl(title):
    return [c for c in j.get('clusters', []) if c['title'] == title]
def chain(c):
    out = ''
    for k in c['chain'][1:]:
        e = k['edge']
        out += e if e == '[]' else '.' + e
    return out.lstrip('.')
ok = eval(sys.argv[2])
if not ok:
    sys.stderr.write('  expression was false: %s\n' % sys.argv[2])
sys.exit(0 if ok else 1)
PY
        echo "ok: $desc"
    else
        echo "FAIL: $desc"
        JS_FAILS=$((JS_FAILS + 1))
    fi
}

js_golden() {
    local file=$1 name=$2 exp=$LEAKRAY_SRC/tests/e2e/expected/js/$2
    if [ "${LEAKRAY_UPDATE_GOLDEN:-}" = 1 ]; then
        cp "$file" "$exp"
        echo "updated: $exp"
    elif diff -u "$exp" "$file"; then
        echo "ok: $name matches the golden file"
    else
        echo "FAIL: $name differs from tests/e2e/expected/js/$name"
        JS_FAILS=$((JS_FAILS + 1))
    fi
}

js_finish() {
    if [ "$JS_FAILS" -ne 0 ]; then
        echo "$JS_FAILS check(s) failed"
        exit 1
    fi
    exit 0
}
