# SPDX-License-Identifier: Apache-2.0
# common.bash: helpers sourced by tests/cli/*.sh (not a test itself: the build registers *.sh
# only). Each test is one behaviour of the `leakray` command; expected outputs live in
# tests/cli/expected/ and are regenerated with LEAKRAY_UPDATE_GOLDEN=1. Provides:
#   cli_init NAME          checks the environment, makes a fresh $T (scratch folder)
#   cli_fixtures           sets $FIX to the HPROF fixture folder, or skips (fails under CI=true)
#   cli_need_java          skips (fails under CI=true) without javac/java
#   cli_target_dump        sets $DUMP to a dump of tests/programs/cli/CliTarget.java, made once
#                          per build folder (shared by tests; serialised with flock)
#   run ARGS...            runs $LEAKRAY ARGS, leaving $RC, $T/out and $T/err
#   expect_rc N            fails unless the last run exited with N
#   expect_out/expect_err PATTERN   fails unless stdout/stderr matches the grep -E pattern
#   golden NAME            compares $T/out with tests/cli/expected/NAME (or rewrites it)
#   json_get EXPR          evaluates a Python expression on the parsed $T/out (as `d`)
#   fail MSG               prints "FAIL: MSG" with the last run's output, exits 1

fail() {
    echo "FAIL: $*" >&2
    if [ -n "${T:-}" ] && [ -f "$T/out" ]; then
        echo "--- last stdout (first 40 lines):" >&2
        head -40 "$T/out" >&2
        echo "--- last stderr (first 20 lines):" >&2
        head -20 "$T/err" >&2
    fi
    exit 1
}

skip() {
    if [ "${CI:-}" = true ]; then
        echo "FAIL: $* (required under CI=true)" >&2
        exit 1
    fi
    echo "SKIP: $*" >&2
    exit 77
}

cli_init() {
    : "${LEAKRAY_SRC:=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)}"
    : "${LEAKRAY_BUILD:?LEAKRAY_BUILD must name the build folder}"
    : "${LEAKRAY:=$LEAKRAY_BUILD/leakray}"
    [ -x "$LEAKRAY" ] || fail "no CLI at $LEAKRAY"
    T=$LEAKRAY_BUILD/tmp/cli-$1
    rm -rf "$T"
    mkdir -p "$T"
    EXPECTED=$LEAKRAY_SRC/tests/cli/expected
    export LC_ALL=C
}

cli_fixtures() {
    FIX=${LEAKRAY_FIXTURES:-$LEAKRAY_SRC/../shared/fixtures}/hprof
    [ -d "$FIX" ] || skip "no HPROF fixtures at $FIX"
}

cli_need_java() {
    command -v javac >/dev/null && command -v java >/dev/null || skip "no JDK (javac/java)"
}

cli_target_dump() {
    cli_need_java
    local dir=$LEAKRAY_BUILD/tmp/cli-target
    local src=$LEAKRAY_SRC/tests/programs/cli/CliTarget.java
    mkdir -p "$dir"
    DUMP=$dir/CliTarget.hprof
    (
        flock 9
        # Rebuilt when the program changes, so a stale dump never hides an edit.
        if [ ! -s "$DUMP" ] || [ "$src" -nt "$DUMP" ]; then
            rm -rf "$dir/classes" "$DUMP"
            javac -d "$dir/classes" "$src" >&2 || exit 1
            java -Xmx64m -XX:+UseSerialGC -cp "$dir/classes" CliTarget "$dir/partial.hprof" >&2 || exit 1
            mv "$dir/partial.hprof" "$DUMP"
        fi
    ) 9>"$dir/lock" || fail "could not write the CliTarget heap dump"
    [ -s "$DUMP" ] || fail "no dump at $DUMP"
}

run() {
    set +e
    "$LEAKRAY" "$@" >"$T/out" 2>"$T/err"
    RC=$?
    set -e
}

expect_rc() {
    [ "$RC" = "$1" ] || fail "leakray exited $RC, expected $1"
}

expect_out() {
    grep -qE -- "$1" "$T/out" || fail "stdout does not match /$1/"
}

expect_err() {
    grep -qE -- "$1" "$T/err" || fail "stderr does not match /$1/"
}

golden() {
    local want=$EXPECTED/$1
    if [ "${LEAKRAY_UPDATE_GOLDEN:-}" = 1 ]; then
        cp "$T/out" "$want"
        echo "golden: rewrote tests/cli/expected/$1" >&2
        return 0
    fi
    [ -f "$want" ] || fail "missing golden file tests/cli/expected/$1 (LEAKRAY_UPDATE_GOLDEN=1 writes it)"
    diff -u "$want" "$T/out" >"$T/diff" || {
        head -40 "$T/diff" >&2
        fail "output differs from tests/cli/expected/$1"
    }
}

json_get() {
    python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
v = eval(sys.argv[2])
print(json.dumps(v) if isinstance(v, (dict, list, bool)) or v is None else v)' "$T/out" "$1" ||
        fail "JSON check failed: $1"
}

# json_eq EXPR WANT: fails unless json_get EXPR prints WANT.
json_eq() {
    local got
    got=$(json_get "$1")
    [ "$got" = "$2" ] || fail "JSON $1 = '$got', expected '$2'"
}
