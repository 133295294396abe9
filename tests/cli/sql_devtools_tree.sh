#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# sql_devtools_tree.sh: under --model devtools every object DevTools' tree holds has a
# dominator, as `show` and DevTools give it. A WeakMap with a dead key leaves the hole in its
# table, which no essential edge reaches: DevTools hangs it under its root, and SQL gave it
# (and three objects below it) a retained size but no dominator, so a subtree's recursive
# query lost them and no row but the root's should read NULL there.
set -euo pipefail
. "$(dirname "$0")/lib/common.bash"
cli_init sql-devtools-tree
command -v node >/dev/null || skip "no node"
node -e "const v8 = require('v8');
    globalThis.k = {}; globalThis.wm = new WeakMap(); wm.set(k, {v: 1}); wm.set({}, {v: 2});
    setTimeout(() => v8.writeHeapSnapshot('$T/h.heapsnapshot'), 50);"
run sql --model devtools "$T/h.heapsnapshot" "SELECT count(*) FROM objects
    WHERE dominator IS NULL AND retained > 0"
expect_rc 0
[ "$(tail -1 "$T/out")" = 1 ] || fail "objects with a retained size and no dominator: $(cat "$T/out")"
run sql --model devtools "$T/h.heapsnapshot" "SELECT (SELECT retained FROM objects
    WHERE dominator IS NULL AND retained > 0) = (SELECT sum(shallow) FROM objects
    WHERE retained > 0 OR dominator IS NOT NULL)"
[ "$(tail -1 "$T/out")" = 1 ] || fail "the root's retained size is not every object's: $(cat "$T/out")"
echo "sql_devtools_tree: ok"
