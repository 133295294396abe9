#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# node_boilerplates.sh: `leaks` on a Node.js server that keeps nothing but 50 Orders reports
# the Orders and nothing else. tests/programs/node/boilerplates.js runs literals (V8 keeps a
# template, a boilerplate, of each in its AllocationSite, where no script reaches it) and
# concurrent requests (Node pools its HTTP parsers) between the snapshots: both were "leaks",
# so `--fail-on-leak` failed on a server that does not leak (rules/v8.rules: `leak-ignore
# "system / AllocationSite" dominated`, `leak-ignore HTTPParser contents`).
set -euo pipefail
: "${LEAKRAY:?}" "${LEAKRAY_SRC:?}" "${LEAKRAY_BUILD:?}"
command -v node >/dev/null || { echo "SKIP: node not installed"; exit 77; }
command -v python3 >/dev/null || { echo "SKIP: python3 not installed"; exit 77; }
work="$LEAKRAY_BUILD/tmp/node_boilerplates"
rm -rf "$work"
mkdir -p "$work"
fail() { echo "FAIL: $*" >&2; exit 1; }
node --expose-gc "$LEAKRAY_SRC/tests/programs/node/boilerplates.js" "$work/s" >/dev/null
rc=0
"$LEAKRAY" leaks --baseline "$work/s-1base.heapsnapshot" --target "$work/s-2target.heapsnapshot" \
    --final "$work/s-3final.heapsnapshot" --json --no-timing --fail-on-leak >"$work/l.json" ||
    rc=$?
[ "$rc" = 1 ] || fail "leaks exited $rc, want 1 (the Orders)"
python3 - "$work/l.json" <<'PY' || fail "leaks named more than the 50 Orders"
import json, sys
d = json.load(open(sys.argv[1]))
top = [c for c in d["clusters"] if c.get("nested_in") is None]
names = [c["title"] for c in top]
assert top[0]["title"] == "Order" and top[0]["count"] == 50, names
# the timers' list of one duration may come and go with the sockets' timeouts: left alone
assert len(top) <= 2 and all(t in ("Order", "TimersList") for t in names), names
for c in d["clusters"]:
    chain = [h.get("node") for h in c.get("chain", [])]
    assert "system / AllocationSite" not in chain and c["title"] != "HTTPParser", c["title"]
PY
echo "node_boilerplates: ok"
