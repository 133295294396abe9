#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# rules_values.sh: comparisons of the rules language (rules files, --leaking-if, instances
# --where) on the values of tests/programs/rules/RuleValues.java, against Java's own answers:
#  - strings compare whole: routes sharing their first 255 characters were equal, and a
#    literal no route has matched two of them;
#  - NaN is unordered: `f >= 5`, `f == 0` held for it; only != does;
#  - `.5` and `1e-3` are numbers (.5 read as a missing field, 1e-3 was refused);
#  - a build fact the dump lacks makes comparisons false: `when manufacturer != "samsung"`
#    filed a plain JVM's leak as a library leak;
#  - an AtomicBoolean, AtomicInteger or AtomicLong reads as its value: `closed` named every
#    context, the running one too.
set -euo pipefail
: "${LEAKRAY:?}" "${LEAKRAY_SRC:?}" "${LEAKRAY_BUILD:?}"
. "$LEAKRAY_SRC/tests/e2e/need_lib.bash"
need_tools javac java python3
work="$LEAKRAY_BUILD/tmp/rules_values"
rm -rf "$work"
mkdir -p "$work/classes"
fail() { echo "FAIL: $*" >&2; exit 1; }
javac -d "$work/classes" "$LEAKRAY_SRC/tests/programs/rules/RuleValues.java"
java -cp "$work/classes" com.example.rules.RuleValues "$work/v.hprof" >/dev/null
P=$(printf 'x%.0s' $(seq 255))

# leaking objects among the watched instances of CLASS where EXPR holds
count() {
    "$LEAKRAY" analyze "$work/v.hprof" --json --no-timing --no-suspects \
        --watch "com.example.rules.RuleValues\$$1" --leaking-if "$2" >"$work/a.json" ||
        fail "$2: exit $?"
    python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["leaking_objects"])' \
        "$work/a.json"
}
check() { # CLASS EXPR WANT
    local got
    got=$(count "$1" "$2")
    [ "$got" = "$3" ] || fail "$2: $got leaking, want $3"
    echo "ok: $2 -> $3"
}
check Screen "route == \"$P/checkout\"" 1
check Screen "route == \"${P}zzz\"" 0
check Screen "route != \"$P/checkout\"" 2
check Screen "route > \"$P/h\"" 1
check Gauge 'f >= 5' 0
check Gauge 'f == 0' 0
check Gauge 'f <= -5' 0
check Gauge 'f != 0' 3
check Gauge 'f > 1' 1
check Gauge 'd > .5' 2
check Gauge 'd > 1e-3' 2
check Gauge 'd > 1E3' 1
check Gauge 'd < -.5' 0
check Context 'closed' 1
check Context '!closed' 1
check Context 'closed == true' 1
check Context 'refs > 2' 1
check Context 'refs == 0' 1
check Context 'closedAt > 1600000000000' 1
check Context 'closed is null' 0
check Context 'closed.value == 1' 1

# instances --where uses the same comparisons
n=$("$LEAKRAY" instances "$work/v.hprof" 'com.example.rules.RuleValues$Screen' --no-timing \
    --where "route == \"$P/home\"" --json | python3 -c 'import json,sys
print(len(json.load(sys.stdin)["instances"]))')
[ "$n" = 1 ] || fail "instances --where: $n"

# no android.os.Build: no manufacturer to differ from "samsung"
printf '%s\n' 'library-leak static com.example.rules.RuleValues#ALL when manufacturer != "samsung"' \
    'library-leak static com.example.rules.RuleValues#ALL when build_id != "X"' >"$work/b.rules"
"$LEAKRAY" analyze "$work/v.hprof" --json --no-timing --no-suspects --rules "$work/b.rules" \
    --watch 'com.example.rules.RuleValues$Screen' >"$work/b.json"
python3 - "$work/b.json" <<'PY' || fail "build facts"
import json, sys
d = json.load(open(sys.argv[1]))
assert not d['library_leaks'] and d['application_leaks'], (len(d['library_leaks']),)
PY
echo "rules_values: ok"
