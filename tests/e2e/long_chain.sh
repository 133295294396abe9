#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# long_chain.sh: leak paths a million references long, and thousands of traces along one chain,
# stay linear in time, memory and output. tests/programs/longchain/LongChain.java dumps a
# 1,000,000-node (100,000 under ASan) singly linked list held by one static field (and 20,000- and 400-node lists
# whose nodes each hold a watched Item, with a not-leaking checkpoint every 100 nodes):
# - `--watch Node --leaking-if 'val > 999990'`: one trace ending at node 999,991 (the first
#   leaking object on the chain), both ends kept, the middle counted on one line, the other
#   eight leaking nodes "also retained" (never UNREACHABLE);
# - `--watch Node`: a million watched objects in one pass (one trace, 999,999 also retained);
# - 20,000 watched items: 100 traces printed by default, `--max-traces`; on 400 items every
#   kept end of every trace equals the same positions of the `--full` trace (statuses,
#   reasons, suspects, references), signatures and groups equal.
set -euo pipefail
: "${LEAKRAY:?}" "${LEAKRAY_SRC:?}" "${LEAKRAY_BUILD:?}"
. "$LEAKRAY_SRC/tests/e2e/need_lib.bash"
need_tools javac java python3
[ -x /usr/bin/time ] || { echo "FAIL: /usr/bin/time is needed (apt-get install time)"; exit 1; }
work="$LEAKRAY_BUILD/tmp/long_chain"
rm -rf "$work"
mkdir -p "$work/classes"
fail() { echo "FAIL: $*" >&2; exit 1; }
javac -d "$work/classes" "$LEAKRAY_SRC"/tests/programs/longchain/LongChain.java
main=com.example.longchain.LongChain
N=1000000
# ASan makes every step several times slower: a tenth of the list shows the same there
[[ $(ldd "$LEAKRAY" 2>/dev/null) == *libasan* ]] && N=100000
grouped() { python3 -c 'import sys; print(f"{int(sys.argv[1]):,}")' "$1"; }
java -Xmx1g -cp "$work/classes" $main "$work/chain.hprof" $N
java -cp "$work/classes" $main "$work/comb.hprof" 20000 items
java -cp "$work/classes" $main "$work/small.hprof" 400 items
node="$main\$Node" item="$main\$Item"
# time and memory are checked with generous bounds: a quadratic pass over a million-node path
# takes minutes and gigabytes, the linear one seconds and well under 1 GB (more under ASan)
limit_kb=$((1024 * 1024)) limit_s=120
# ASan's bounds; its time bound also allows a machine shared with other test runs
[[ $(ldd "$LEAKRAY" 2>/dev/null) == *libasan* ]] && limit_kb=$((3 * 1024 * 1024)) limit_s=400
run() { # run NAME ARGS...: analyze with a time limit, keep stdout, check peak RSS
    local name=$1; shift
    local rc=0
    # --verbose: the "Also retains" labels checked below are not LeakCanary's, so opt-in;
    # --no-suspects: only the trace section is counted
    /usr/bin/time -f %M -o "$work/$name.rss" timeout "$limit_s" "$LEAKRAY" analyze --no-timing \
        --no-progress --verbose --no-suspects "$@" >"$work/$name.out" 2>"$work/$name.err" || rc=$?
    [ "$rc" = 0 ] || fail "$name: exit $rc: $(head -3 "$work/$name.err")"
    local rss; rss=$(tail -1 "$work/$name.rss")
    [ "$rss" -le "$limit_kb" ] || fail "$name: peak RSS $rss KB > $limit_kb KB"
    echo "ok: $name: peak RSS $rss KB, $(wc -c <"$work/$name.out") bytes out" >&2
}

run ten "$work/chain.hprof" --watch "$node" --leaking-if "val > $((N - 10))"
t=$work/ten.out
grep -q '^1 APPLICATION LEAKS$' "$t" || fail "ten: not one application leak"
grep -q '^0 UNREACHABLE OBJECTS$' "$t" || fail "ten: leaking nodes listed as unreachable"
grep -q 'Also retains 8 leaking com.example.longchain.LongChain$Node objects$' "$t" ||
    fail "ten: the eight deeper leaking nodes are not also retained"
# 2 class objects + nodes 0..N-9 = N-6 path objects (999,994 for a million); 50 shown
grep -q "^│    … $(grouped $((N - 56))) more references … (--full shows them)\$" "$t" ||
    fail "ten: no elision line"
[ "$(grep -c '^├─ ' "$t")" = 49 ] || fail "ten: $(grep -c '^├─ ' "$t") steps, want 49"
[ "$(grep -c 'Leaking: YES' "$t")" = 1 ] || fail "ten: more than the leaking object says YES"
grep -A1 '^╰→ com.example.longchain.LongChain$Node instance$' "$t" |
    grep -q "Leaking: YES (LongChain\$Node matches val > $((N - 10)))\$" ||
    fail "ten: leaking object line"
"$LEAKRAY" analyze --no-timing --no-progress --json "$work/chain.hprof" --watch "$node" \
    --leaking-if "val > $((N - 10))" >"$work/ten.json"
python3 - "$work/ten.json" "$N" <<'PY' || fail "ten: JSON"
import json, sys
d, n = json.load(open(sys.argv[1])), int(sys.argv[2])
t = d["traces"]
assert len(t) == 1 and d["also_retained"] == 8 and d["unreachable_objects"] == [], d
t = t[0]
assert t["path_length"] == n - 6 and t["elided_objects"] == n - 56, t["path_length"]
assert t["elided_after"] == 25 and len(t["elements"]) == 50
last = t["elements"][-1]
assert last["leaking"] == "YES" and f"matches val > {n - 10}" in last["reason"], last
assert last["retained_objects"] == 9, last
assert t["elements"][-2]["leaking"] == "UNKNOWN" and t["elements"][-2]["retained_objects"] == 10
PY

run all "$work/chain.hprof" --watch "$node"
grep -q '^1 APPLICATION LEAKS$' "$work/all.out" || fail "all: not one application leak"
grep -q "Also retains $((N - 1)) leaking com.example.longchain.LongChain\$Node objects\$" \
    "$work/all.out" || fail "all: the other watched nodes are not also retained"

# thousands of traces sharing one chain
cp_rules=$work/checkpoint.rules
echo "inspect $node if checkpoint == true -> not-leaking \"a checkpoint\"" >"$cp_rules"
C=("$work/comb.hprof" --watch "$item" --rules "$cp_rules")
run plain "$work/comb.hprof" --watch "$item"
grep -q '^20000 APPLICATION LEAKS$' "$work/plain.out" || fail "plain: not 20000 groups"
grep -q '^… 19,900 more leak traces with other signatures … (--max-traces N or --full shows them)$' \
    "$work/plain.out" || fail "plain: no summary of the traces not printed"
run comb "${C[@]}"
grep -q '^150 APPLICATION LEAKS$' "$work/comb.out" || fail "comb: not 150 groups"
grep -q '^… 50 more leak traces with other signatures … (--max-traces N or --full shows them)$' \
    "$work/comb.out" || fail "comb: no summary of the traces not printed"
[ "$(grep -c '^Signature: ' "$work/comb.out")" = 100 ] || fail "comb: not 100 traces printed"
run comb5 "${C[@]}" --max-traces 5
[ "$(grep -c '^Signature: ' "$work/comb5.out")" = 5 ] || fail "comb: --max-traces 5"
S=("$work/small.hprof" --watch "$item" --rules "$cp_rules")
"$LEAKRAY" analyze --no-timing --json --max-traces 0 "${S[@]}" >"$work/ends.json"
"$LEAKRAY" analyze --no-timing --json --full "${S[@]}" >"$work/full.json"
python3 - "$work/ends.json" "$work/full.json" <<'PY' || fail "comb: kept ends differ from --full"
import json, sys
d, f = (json.load(open(p)) for p in sys.argv[1:3])
assert len(d["traces"]) == len(f["traces"]) == 400
assert [g["signature"] for g in d["application_leaks"]] == \
    [g["signature"] for g in f["application_leaks"]]
elided = 0
for a, b in zip(d["traces"], f["traces"]):
    assert a["signature"] == b["signature"] and a["group"] == b["group"], a["signature"]
    assert a["path_length"] == b["path_length"] == len(b["elements"])
    h, ea, eb = a["elided_after"], a["elements"], b["elements"]
    assert ea == eb[:h] + eb[len(eb) - (len(ea) - h):], a["signature"]
    elided += a["elided_objects"] > 0
# most paths pass checkpoints in their elided middle ("Node↓ is not leaking" ends)
assert elided > 340, elided
assert any(e["leaking"] == "NO" and "Node\u2193 is not leaking" in e["reason"]
           for t in d["traces"] for e in t["elements"][:25])
PY
echo "PASS"
