#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# leaks_node_natives.sh: Node gives its embedder objects (IsolateData, PrincipalRealm, the
# AliasedBuffers of its bindings) a new id in every snapshot, so two snapshots of a program
# that leaks nothing read them all as new: `leaks --fail-on-leak` without --final failed the
# gate with 32 clusters, 30 of them Node's own. A native class whose every object has a new
# id is left out then, and said; with --final nothing changes (the third snapshot drops them).
set -euo pipefail
. "$(dirname "$0")/lib/common.bash"
cli_init leaks-node-natives
command -v node >/dev/null || skip "no node"
node --expose-gc -e "const v8 = require('v8');
    function work() { const a = []; for (let i = 0; i < 1000; i++) a.push({i}); return a.length; }
    for (let s = 1; s <= 3; s++) { work(); global.gc(); v8.writeHeapSnapshot('$T/s' + s + '.heapsnapshot'); }"
run leaks --baseline "$T/s1.heapsnapshot" --target "$T/s2.heapsnapshot" --json --no-timing --top 0
expect_rc 0
json_eq '[c["title"] for c in d["clusters"] if "Node / " in c["title"]]' '[]'
expect_err 'native objects of classes whose every object has a new id in each snapshot'
run leaks --baseline "$T/s1.heapsnapshot" --target "$T/s2.heapsnapshot" \
    --final "$T/s3.heapsnapshot" --json --no-timing --top 0
expect_rc 0
json_eq 'len(d["clusters"])' 0
grep -q 'new id in each snapshot' "$T/err" && fail "--final: renumbered natives said"
echo "leaks_node_natives: ok"
