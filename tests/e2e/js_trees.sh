#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# js_trees.sh: `leakray leaks` and `clusters` on trees of one class (tests/programs/js/trees.js):
# a binary tree and a React-shaped fiber tree are each their root plus one cluster of the rest,
# whatever the turns of their chains (left and right, child and sibling), and the fibers'
# props one cluster nested in them; nested plain objects that use each name once stay apart, and
# so do a queue's jobs (`next`) and the finished jobs each keeps (`dep`): two self-links of one
# class that turn one way only are two leaks, not a tree.
set -euo pipefail
. "$LEAKRAY_SRC/tests/e2e/js_lib.bash"
js_init js_trees
node --expose-gc "$LEAKRAY_SRC/tests/programs/js/trees.js" "$JS_TMP" >"$JS_TMP/sites.txt"
site() { awk -v s="$1" '$2 == s {print $3}' "$JS_TMP/sites.txt"; }
tree=$(site tree) fibers=$(site fibers) deps=$(site deps)

JS_JSON=$JS_TMP/leaks.json
"$LEAKRAY" leaks --baseline "$JS_TMP/baseline.heapsnapshot" --target "$JS_TMP/target.heapsnapshot" \
    --final "$JS_TMP/final.heapsnapshot" --json --no-timing --top 0 >"$JS_JSON"
js_check "binary tree: its root and one cluster of the other $((tree - 1)) nodes" \
    "sorted(c['count'] for c in cl('TreeNode')) == [1, $((tree - 1))]"
js_check "binary tree: the body is nested in the root" \
    "[j['clusters'][c['nested_in'] - 1]['title'] for c in cl('TreeNode') if c['count'] > 1] == ['TreeNode']"
js_check "fiber tree: its root and one cluster of the other $((fibers - 1)) fibers" \
    "sorted(c['count'] for c in cl('FiberNode')) == [1, $((fibers - 1))]"
js_check "fiber props: one cluster, nested in the fibers" \
    "[(c['count'], j['clusters'][c['nested_in'] - 1]['title']) for c in cl('Object {}') if c['count'] > 1] == [($((fibers - 1)), 'FiberNode')]"
for t in "db, cache" "pool, opts" "users, items" "ssl"; do
    js_check "nested plain objects stay apart: Object {$t}" \
        "[c['count'] for c in cl('Object {$t}')] == [1]"
done
js_check "queued jobs: a cluster by next, apart from the finished jobs" \
    "[c['count'] for c in cl('Job') if chain(c).endswith('queue.next')] and max(c['count'] for c in cl('Job') if chain(c).endswith('queue.next')) < $deps // 2"
js_check "finished jobs: a cluster by next.dep of most of the $deps" \
    "[c['count'] for c in cl('Job') if chain(c).endswith('queue.next.dep') and c['count'] >= $deps * 9 // 10]"
js_check "queued tasks, their finished tasks and those linked onward: three clusters" \
    "sorted(c['count'] for c in cl('Task') if c['count'] > 1)[-3:] and max(c['count'] for c in cl('Task')) < $deps * 3 // 4"

JS_JSON=$JS_TMP/clusters.json
"$LEAKRAY" clusters "$JS_TMP/final.heapsnapshot" --json --no-timing --top 0 >"$JS_JSON"
js_check "whole heap: the binary tree is 2 clusters" \
    "sorted(c['count'] for c in cl('TreeNode')) == [1, $((tree - 1))]"
js_check "whole heap: the fiber tree is 2 clusters" \
    "sorted(c['count'] for c in cl('FiberNode')) == [1, $((fibers - 1))]"
js_finish
