#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# browser_cycles.sh: `leakray cycles` on a page snapshot from headless Chromium
# (tests/programs/browser/cycles.html runs tests/programs/node/v8_cycles.js): a nested scope's
# contexts, a promise's reaction and a suspended async function close cycles there too.
# Chromium names a context "system / Context / scope @N" and types a promise reaction native,
# and the three read "no cycle" on a page where Node's snapshot had them.
set -euo pipefail
: "${LEAKRAY:?}" "${LEAKRAY_SRC:?}" "${LEAKRAY_BUILD:?}"
. "$LEAKRAY_SRC/tests/e2e/browser_lib.bash"
command -v python3 >/dev/null || browser_skip "python3 is not installed"
work="$LEAKRAY_BUILD/tmp/browser_cycles"
rm -rf "$work" && mkdir -p "$work"
browser_need_chromium
pw=$(browser_npm playwright-core@1.65.1) || browser_skip "npm cannot install playwright-core"
PAGE=cycles.html node "$LEAKRAY_SRC/tests/programs/browser/snap.mjs" \
    "$pw/node_modules/playwright-core" "$work" >"$work/snap.log" 2>&1 \
    || { cat "$work/snap.log"; echo "FAIL: snapshots"; exit 1; }
snap=$work/final.heapsnapshot
fail() { echo "FAIL: $*" >&2; exit 1; }
check() { # CLASS COUNT WORDS...: one shape through CLASS, COUNT instances, with the words
    local cls=$1 count=$2
    shift 2
    "$LEAKRAY" cycles "$snap" --class "$cls" --json --no-timing >"$work/$cls.json"
    python3 - "$work/$cls.json" "$count" "$@" <<'PY' || fail "$cls: $(cat "$work/$cls.json" | head -c 600)"
import json, sys
c = [x for x in json.load(open(sys.argv[1]))["cycles"] if x["includes_start"]]
assert len(c) == 1 and c[0]["count"] == int(sys.argv[2]), [(x["signature"], x["count"]) for x in c]
assert all(w in c[0]["signature"] for w in sys.argv[3:]), c[0]["signature"]
PY
    echo "ok: $cls" >&2
}
check Bound 4 "Bound.onClick -> Function.bound_this"
check Nested 4 ".previous" ".self -> Nested.cb"
check Pending 4 "Pending.p -> Promise.reactions_or_result" "PromiseReaction"
check Poller 6 ".extension -> Generator.receiver -> Poller.gate"
"$LEAKRAY" cycles "$snap" --class Keyed --json --no-timing >"$work/Keyed.json"
python3 -c 'import json, sys; assert json.load(open(sys.argv[1]))["cycles"] == []' \
    "$work/Keyed.json" || fail "Keyed: a WeakMap entry read as a cycle"
echo "PASS"
