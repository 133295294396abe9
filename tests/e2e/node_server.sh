#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# node_server.sh: leakray on a running Node HTTP service with one planted leak per run, the
# kinds servers hit (tests/programs/node/node_server.js, built-in modules only, written at test
# time: baseline after warm-up traffic, target after 200 leaking requests, final after more
# traffic). For each leak:
# - `leaks` puts every leaked object of the planted class in one cluster, and that cluster is
#   the top answer or nested in it, the top answer's chain passing through what leaks them:
#   the emitter (listeners added per request), Node's timer list (setInterval never cleared,
#   its handle dropped: a linked list whose Timeouts are one cluster, not one per place in
#   the list), the module-level Map, the Set keeping closed sockets, the emitter whose
#   never-settled `once` promises keep AsyncLocalStorage stores;
# - `analyze --watch CLASS --full` traces every instance through the same reference, in one
#   leak group (two for the timer list: a doubly linked list reached from both ends);
# - `path` to one leaked PollState walks the timer list.
set -euo pipefail
: "${LEAKRAY:?}" "${LEAKRAY_SRC:?}" "${LEAKRAY_BUILD:?}"
command -v node >/dev/null || { echo "SKIP: node not installed"; exit 77; }
command -v python3 >/dev/null || { echo "SKIP: python3 not installed"; exit 77; }
work="$LEAKRAY_BUILD/tmp/node_server"
rm -rf "$work" && mkdir -p "$work"
fails=0
ok() { echo "ok: $*"; }
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }
chk() { python3 "$LEAKRAY_SRC/tests/e2e/node_server_check.py" "$@"; }
n=200
# mode:class:reference that leaks it:objects new in target:instances in final:leak groups
# (sockets: two connections per request, each kept, warm-up and final traffic's too)
for spec in listeners:QuoteSubscription:priceFeed:$n:$n:1 \
    timer:PollState:timerListMap:$n:$n:2 map:UserSession:sessions:$n:$n:1 \
    sockets:TrackedSocket:openSockets:$((2 * n)):$((2 * n + 80)):1 \
    als:RequestStore:configBus:$n:$n:1; do
    IFS=: read -r mode cls via new all groups <<<"$spec"
    d=$work/$mode
    node --expose-gc "$LEAKRAY_SRC/tests/programs/node/node_server.js" "$mode" "$d" "$n"
    "$LEAKRAY" leaks --baseline "$d/baseline.heapsnapshot" --target "$d/target.heapsnapshot" \
        --final "$d/final.heapsnapshot" --top 0 --json --no-timing >"$d/leaks.json"
    chk leaks "$d/leaks.json" "$cls" "$via" "$new" \
        && ok "$mode: leaks, the $new ${cls}s in one cluster under the top answer, via $via" \
        || bad "$mode: leaks"
    "$LEAKRAY" analyze "$d/final.heapsnapshot" --watch "$cls" --full --json --no-timing \
        --no-suspects >"$d/watch.json"
    chk watch "$d/watch.json" "$cls" "$via" "$all" "$groups" \
        && ok "$mode: analyze --watch $cls, $all traced in $groups group(s) or fewer via $via" \
        || bad "$mode: analyze --watch $cls"
done

# path: the shortest path to a PollState runs down the timer list (one hop per distance).
d=$work/timer
id=$(python3 -c "import json, sys
print(next(c['representative']['id'] for c in json.load(open(sys.argv[1]))['clusters']
           if c['representative']['name'] == 'PollState'))" "$d/leaks.json")
"$LEAKRAY" path "$d/final.heapsnapshot" "@$id" --no-timing >"$d/path.txt"
grep -q 'timerListMap' "$d/path.txt" && grep -q '_idle\(Next\|Prev\)' "$d/path.txt" \
    && tail -2 "$d/path.txt" | grep -q PollState \
    && ok "path to PollState @$id: through timerListMap and the list's links" \
    || bad "path to PollState: $(cat "$d/path.txt")"
[ "$fails" -eq 0 ] || { echo "$fails checks failed"; exit 1; }
echo "all checks passed"
