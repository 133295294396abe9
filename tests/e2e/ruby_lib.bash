# SPDX-License-Identifier: Apache-2.0
# ruby_lib.bash: what the Ruby end-to-end scripts share (sourced after `set -euo pipefail`).
# ruby_start NAME PROGRAM: skips (exit 77) without ruby or python3, fails without them under
# CI=true; empties W=$LEAKRAY_BUILD/tmp/NAME and runs tests/programs/ruby/PROGRAM there, which
# writes the dump D=$W/heap.json and Ruby's own figures E=$W/ruby.json.
# check FILE EXPR MESSAGE: the Python expression EXPR over d (FILE's JSON) and e (Ruby's
# figures) holds, else the script fails with MESSAGE.
: "${LEAKRAY:?}" "${LEAKRAY_SRC:?}" "${LEAKRAY_BUILD:?}"
fail() { echo "FAIL: $*" >&2; exit 1; }

ruby_start() {
    if ! command -v ruby >/dev/null || ! command -v python3 >/dev/null; then
        [ "${CI:-}" = true ] && fail "ruby and python3 are required under CI=true"
        echo "SKIP: ruby not installed (scripts/deps.sh test installs it)"
        exit 77
    fi
    W="$LEAKRAY_BUILD/tmp/$1"
    rm -rf "$W"
    mkdir -p "$W"
    D="$W/heap.json"
    E="$W/ruby.json"
    ruby "$LEAKRAY_SRC/tests/programs/ruby/$2" "$D" "$E"
}

check() {
    python3 -c "import json,sys; d=json.load(open(sys.argv[1])); e=json.load(open(sys.argv[2]));
assert eval('(' + sys.argv[3] + ')'), (sys.argv[3], json.dumps(d)[:400])" "$1" "$E" "$2" ||
        fail "$3"
}
