#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# js_deep_chain.sh: a cluster's chain past 256 hops keeps both ends. Node snapshots before
# and after a 600-link list whose last link holds a Leaked object: `leaks` prints the root's end and
# the object's end with "... N more" between them, and --json gives chain_length (the whole
# chain), chain_elided, chain_elided_after and the chain's two ends. The reference that holds
# the object was cut off before (only the root's 256 hops were kept, unmarked in JSON).
set -euo pipefail
: "${LEAKRAY:?}" "${LEAKRAY_SRC:?}" "${LEAKRAY_BUILD:?}"
. "$LEAKRAY_SRC/tests/e2e/need_lib.bash"
need_tools node python3
work="$LEAKRAY_BUILD/tmp/js_deep_chain"
rm -rf "$work"
mkdir -p "$work"
fail() { echo "FAIL: $*" >&2; exit 1; }
node --expose-gc -e '
const v8 = require("v8"), dir = process.argv[1];
class Link { constructor() { this.next = null; } }
class Leaked { constructor() { this.payload = new Array(64).fill(7); } }
v8.writeHeapSnapshot(dir + "/baseline.heapsnapshot");
function build() { /* its locals end with it: only the list holds the last link */
    let head = null, last = null;
    for (let i = 0; i < 600; i++) {
        const l = new Link();
        if (last) last.next = l; else head = l;
        last = l;
    }
    last.held = new Leaked();
    return head;
}
globalThis.chain = build();
v8.writeHeapSnapshot(dir + "/target.heapsnapshot");
v8.writeHeapSnapshot(dir + "/final.heapsnapshot");' "$work"
"$LEAKRAY" leaks --baseline "$work/baseline.heapsnapshot" --target "$work/target.heapsnapshot" \
    --final "$work/final.heapsnapshot" --json --no-timing --top 0 >"$work/cl.json"
python3 - "$work/cl.json" <<'PY' || fail "the deep chain lost its end"
import json, sys
d = json.load(open(sys.argv[1]))
c = [c for c in d["clusters"] if c["representative"]["name"] == "Leaked"][0]
ch = c["chain"]
assert c["chain_length"] > 600 and c["chain_elided"] == c["chain_length"] - len(ch), c
assert len(ch) == 256 and c["chain_elided_after"] == 128, (len(ch), c["chain_elided_after"])
assert ch[-1]["node"] == "Leaked" and ch[-1]["edge"].endswith("held"), ch[-1]
PY
"$LEAKRAY" leaks --baseline "$work/baseline.heapsnapshot" --target "$work/target.heapsnapshot" \
    --final "$work/final.heapsnapshot" --no-timing --top 0 >"$work/cl.txt"
grep -q -- '--held (property)--> Leaked' "$work/cl.txt" || fail "text: the holding reference"
grep -Eq '^        \.\.\. [0-9,]+ more$' "$work/cl.txt" || fail "text: no elision line"
echo "js_deep_chain: ok"
