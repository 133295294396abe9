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
#   never-settled `once` promises keep AsyncLocalStorage stores, the plain object keyed by
#   request id;
# - `analyze --watch CLASS --full` traces every instance through the same reference, in one
#   leak group (a timer list's place and a plain object's key are not part of a signature);
# - `path` to one leaked PollState walks the timer list.
# The timer trio is also kept (tests/data/v8/node-server-timer-*.heapsnapshot.xz, taken with
# the peers' answers by scripts/golden-node-server.sh), so that part runs without Node too:
# the same cluster check; `leaks` summed by name equals memlab 2.0.5's --trace-all-objects
# rows (count, retained as memlab prints it; its `object shape` rows are V8 internals leakray
# filters), where memlab's default filter finds nothing on a Node heap; `histo --retained`
# and `top` equal DevTools' Summary and its 100 objects retaining most.
set -euo pipefail
: "${LEAKRAY:?}" "${LEAKRAY_SRC:?}" "${LEAKRAY_BUILD:?}"
command -v python3 >/dev/null || { echo "SKIP: python3 not installed"; exit 77; }
work="$LEAKRAY_BUILD/tmp/node_server"
rm -rf "$work" && mkdir -p "$work/kept"
fails=0
ok() { echo "ok: $*"; }
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }
chk() { python3 "$LEAKRAY_SRC/tests/e2e/node_server_check.py" "$@"; }
n=200

k=$work/kept
for s in baseline target final; do
    python3 -c "import lzma, shutil, sys
shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[2], 'wb'))" \
        "$LEAKRAY_SRC/tests/data/v8/node-server-timer-$s.heapsnapshot.xz" "$k/$s.heapsnapshot"
done
"$LEAKRAY" leaks --baseline "$k/baseline.heapsnapshot" --target "$k/target.heapsnapshot" \
    --final "$k/final.heapsnapshot" --top 0 --json --no-timing >"$k/leaks.json"
chk leaks "$k/leaks.json" PollState timerListMap "$n" \
    && ok "kept timer trio: leaks, the $n PollStates in one cluster under the top answer" \
    || bad "kept timer trio: leaks"
"$LEAKRAY" analyze "$k/final.heapsnapshot" --watch PollState --full --json --no-timing \
    --no-suspects >"$k/watch.json"
chk watch "$k/watch.json" PollState timerListMap "$n" 1 \
    && ok "kept timer trio: analyze --watch PollState, one group of $n" \
    || bad "kept timer trio: analyze --watch PollState"
python3 - "$k/leaks.json" "$LEAKRAY_SRC/tests/e2e/expected/js/node-server-timer-memlab.txt" \
    <<'PY' && ok "kept timer trio: memlab's --trace-all-objects rows" || bad "leaks against memlab"
import json, os, sys
sys.path.insert(0, os.path.join(os.environ['LEAKRAY_SRC'], 'tests', 'e2e'))
from memlab_leaks import by_name, row_diff, table_rows
got = by_name(json.load(open(sys.argv[1])))
first, rows = table_rows(sys.argv[2])
assert first == 'MemLab found 0 leak(s)', first
bad, seen = [], 0
for name, typ, count, ret in rows:
    if typ == 'object shape':
        continue
    seen += 1
    bad += filter(None, [row_diff(got, name, count, ret)])
for b in bad:
    print('  ' + b, file=sys.stderr)
sys.exit(1 if bad or seen < 4 else 0)
PY

"$LEAKRAY" histo --retained --json --no-timing "$k/final.heapsnapshot" >"$k/histo.json"
gold=$LEAKRAY_SRC/tests/e2e/expected/devtools/node-server-timer-final
python3 "$LEAKRAY_SRC/tests/e2e/browser_check.py" summary "$k/histo.json" \
    "$gold.heapsnapshot.xz.classes.tsv" \
    && ok "kept timer trio: histo --retained equals DevTools' Summary" || bad "histo"
"$LEAKRAY" top --top 0 --json --no-timing "$k/final.heapsnapshot" >"$k/top.json"
python3 "$LEAKRAY_SRC/tests/e2e/devtools_top.py" "$k/top.json" "$gold.top.tsv" \
    && ok "kept timer trio: top, DevTools' self, retained, distance and order" || bad "top"

if ! command -v node >/dev/null; then
    echo "node not installed: the programs' own runs skipped"
    [ "$fails" -eq 0 ] || { echo "$fails checks failed"; exit 1; }
    exit 0
fi
# mode:class:reference that leaks it:objects new in target:instances in final:leak groups
# (sockets: two connections per request, each kept, warm-up and final traffic's too)
for spec in listeners:QuoteSubscription:priceFeed:$n:$n:1 \
    timer:PollState:timerListMap:$n:$n:1 map:UserSession:sessions:$n:$n:1 \
    sockets:TrackedSocket:openSockets:$((2 * n)):$((2 * n + 80)):1 \
    als:RequestStore:configBus:$n:$n:1 registry:ClientRecord:clientsById:$n:$n:1; do
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
