#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# node_startup_baseline.sh: `leaks` and `diff` take a baseline written as a Node program
# starts and a target written after it loaded more code (tests/programs/node/
# startup_baseline.js): each side has class names of its own (Node's start-up shapes, named
# by their properties, gone; handler classes and stdout's added), which read as "different
# programs" and needed --force. The Order objects it leaks are found.
set -euo pipefail
: "${LEAKRAY:?}" "${LEAKRAY_SRC:?}" "${LEAKRAY_BUILD:?}"
. "$LEAKRAY_SRC/tests/e2e/need_lib.bash"
need_tools node python3
work="$LEAKRAY_BUILD/tmp/node_startup_baseline"
rm -rf "$work"
mkdir -p "$work"
fail() { echo "FAIL: $*" >&2; exit 1; }
node --expose-gc "$LEAKRAY_SRC/tests/programs/node/startup_baseline.js" "$work" >/dev/null
rc=0
"$LEAKRAY" leaks --json --no-timing --baseline "$work/s1-baseline.heapsnapshot" \
    --target "$work/s2-target.heapsnapshot" --final "$work/s3-final.heapsnapshot" \
    >"$work/leaks.json" 2>"$work/leaks.err" || rc=$?
[ $rc = 0 ] || fail "leaks: exit $rc: $(cat "$work/leaks.err")"
python3 - "$work/leaks.json" <<'PY' || fail "leaks: the 2,000 Orders"
import json, sys
d = json.load(open(sys.argv[1]))
orders = [c for c in d["clusters"] if c["title"] == "Order"]
assert orders and sum(c["count"] for c in orders) == 2000, [(c["title"], c["count"]) for c in d["clusters"][:8]]
PY
rc=0
"$LEAKRAY" diff --no-timing "$work/s1-baseline.heapsnapshot" "$work/s2-target.heapsnapshot" \
    >"$work/diff.txt" 2>"$work/diff.err" || rc=$?
[ $rc = 0 ] || fail "diff: exit $rc: $(cat "$work/diff.err")"
grep -q "matched by node id" "$work/diff.txt" || fail "diff: $(head -2 "$work/diff.txt")"
echo "node_startup_baseline: ok"
