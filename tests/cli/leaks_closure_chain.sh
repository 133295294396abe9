#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# leaks_closure_chain.sh: a chain of leaked objects linked through closures is one cluster
# per kind of object, as memlab groups it (tests/programs/node/closure_chain.js: 30 links
# leaked between the snapshots, each Object -> someMethod -> Context -> originalThing ->
# Object). Each link's chain from the root was one step longer than the last, so every
# object was a cluster of its own: 120 clusters of count 1 (2,000 links: 8,000).
set -euo pipefail
. "$(dirname "$0")/lib/common.bash"
cli_init leaks-closure-chain
command -v node >/dev/null || skip "no node"
node --expose-gc "$LEAKRAY_SRC/tests/programs/node/closure_chain.js" "$T/s" 30
run leaks --baseline "$T/s-1.heapsnapshot" --target "$T/s-2.heapsnapshot" \
    --final "$T/s-3.heapsnapshot" --json --no-timing
expect_rc 0
json_eq 'sorted((c["directory"], c["count"]) for c in d["clusters"] if c["count"] >= 30)' \
    '[["Array", 30], ["Function", 30], ["Object", 30], ["Payload", 30]]'
json_eq 'len(d["clusters"]) <= 6' true
echo "leaks_closure_chain: ok"
