#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# diff_lambdas.sh: `diff` of two runs of one program (tests/programs/diff/Lambdas.java, run
# twice) names the lambdas' hidden classes as the stable signatures do (Lambdas$$Lambda):
# the JVM names them anew in each run, and every lambda read "0 -> N" plus "N -> 0", so no
# --fail-on-growth gate could name one. Same program, same lambdas: no lambda row changes,
# and a gate on Lambdas$$Lambda sees its instances on both sides.
set -euo pipefail
: "${LEAKRAY:?}" "${LEAKRAY_SRC:?}" "${LEAKRAY_BUILD:?}"
. "$LEAKRAY_SRC/tests/e2e/need_lib.bash"
need_tools javac java python3
work="$LEAKRAY_BUILD/tmp/diff_lambdas"
rm -rf "$work"
mkdir -p "$work/classes"
fail() { echo "FAIL: $*" >&2; exit 1; }
javac -d "$work/classes" "$LEAKRAY_SRC/tests/programs/diff/Lambdas.java"
java -Xmx64m -cp "$work/classes" Lambdas "$work/a.hprof" >/dev/null
java -Xmx64m -Xshare:off -cp "$work/classes" Lambdas "$work/b.hprof" >/dev/null
rc=0
"$LEAKRAY" diff "$work/a.hprof" "$work/b.hprof" --json --no-timing --top 0 \
    --fail-on-growth 'Lambdas$$Lambda=0' >"$work/d.json" 2>"$work/d.err" || rc=$?
[ $rc = 0 ] || fail "diff: exit $rc: $(cat "$work/d.err")"
python3 - "$work/d.json" <<'PY' || fail "lambda rows"
import json, sys
d = json.load(open(sys.argv[1]))
moved = [c['name'] for c in d['classes'] if '$$Lambda' in c['name']]
assert not moved, moved
g = d['gates'][0]
assert g['known'] and g['count_a'] >= 6 and g['count_a'] == g['count_b'] and not g['failed'], g
PY
echo "diff_lambdas: ok"
