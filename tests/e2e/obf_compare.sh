#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# obf_compare.sh: comparisons refuse nonsense and gate growth. Two dumps of one process of
# tests/programs/obf/a.java (200 then 1,200 items, obf_lib.bash) compare; against a dump of
# another program (tests/programs/cli/CliTarget.java), or an HPROF against a .heapsnapshot,
# `diff` and `leaks` stop with exit 2 and say why; --force lifts the process check only.
# --retained adds each class's retained bytes (the cart's growth shows on Cart, whose counts
# do not change); --fail-on-growth gates on counts and percentages (exit 1), and a class in
# neither dump is a warning (stderr and JSON) that --strict turns into exit 2.
# Two builds each with its own mapping (tests/programs/obf/swap/z.java, names swapped between
# them) compare with --mapping given once per dump: the last mapping decoded both and the class
# that did not grow was named as the one that did; a second --mapping elsewhere is refused.
. "$(dirname "$0")/obf_lib.bash"
obf_init obf_compare
cd "$OBF"
mkdir -p cli
javac -d cli "$LEAKRAY_SRC/tests/programs/cli/CliTarget.java" || fail "javac CliTarget"
java -cp cli CliTarget other.hprof || fail "CliTarget failed"
V8=${LEAKRAY_FIXTURES:-$LEAKRAY_SRC/../shared/fixtures}/v8
A=o1.hprof B=o2.hprof

run() { rc=0; "$LEAKRAY" "$@" >out.txt 2>err.txt || rc=$?; }

run diff --no-timing "$A" "$B"
[ "$rc" = 0 ] || fail "diff of one process exits $rc: $(cat err.txt)"
grep -Eq '^ +200 +1,200 +\+1,000 .* c$' out.txt || fail "diff: c does not grow 200 -> 1,200"

mkdir -p swap
javac -d swap "$LEAKRAY_SRC/tests/programs/obf/swap/z.java" || fail "javac z"
java -cp swap z 1 swap1.hprof && java -cp swap z 2 swap2.hprof || fail "z failed"
printf 'com.x.Item -> x:\n    long id -> a\ncom.x.Order -> y:\n    long id -> a\n' >swap1.map
printf 'com.x.Item -> y:\n    long id -> a\ncom.x.Order -> x:\n    long id -> a\n' >swap2.map
run diff --no-timing --json swap1.hprof swap2.hprof --mapping swap1.map --mapping swap2.map
[ "$rc" = 0 ] || fail "diff of two builds exits $rc: $(cat err.txt)"
python3 -c 'import json,sys; r={c["name"]: (c["count_a"], c["count_b"]) for c in json.load(open("out.txt"))["classes"]}
sys.exit(0 if r.get("com.x.Item") == (100, 300) and r.get("com.x.Order", (50, 50)) == (50, 50) else 1)' ||
    fail "diff of two builds, one mapping each: $(head -c 600 out.txt)"
run histo --no-timing swap1.hprof --mapping swap1.map --mapping swap2.map
[ "$rc" = 2 ] && grep -q "mapping given 2 times" err.txt || fail "histo with two mappings: $rc"

run diff --no-timing "$A" other.hprof
[ "$rc" = 2 ] || fail "diff of two programs exits $rc, want 2"
grep -q 'the first runs a.main, the second CliTarget.main: different programs' err.txt ||
    fail "diff of two programs: no reason given: $(cat err.txt)"
[ -s out.txt ] && fail "refused diff printed a table"
run diff --no-timing --force "$A" other.hprof
[ "$rc" = 0 ] || fail "diff --force exits $rc"
grep -q 'warning: .*compared as asked (--force)' err.txt || fail "diff --force: no warning"
run diff --no-timing --json "$A" other.hprof
[ "$rc" = 2 ] || fail "diff --json of two programs exits $rc"
python3 -c 'import json,sys; e=json.load(open("out.txt"))["error"]; assert e["exit"]==2 and "different programs" in e["message"], e' ||
    fail "diff --json: no error object"

if [ -f "$V8/heap-1.heapsnapshot" ]; then
    for f in "" --force; do
        run diff --no-timing $f "$A" "$V8/heap-1.heapsnapshot"
        [ "$rc" = 2 ] || fail "diff $f of HPROF and V8 exits $rc, want 2"
        grep -q 'is hprof, .*heap-1.heapsnapshot is v8: only snapshots of one format' err.txt ||
            fail "diff $f HPROF/V8: $(cat err.txt)"
    done
    run leaks --no-timing --baseline "$V8/heap-1.heapsnapshot" --target "$V8/small.heapsnapshot"
    [ "$rc" = 2 ] || fail "leaks across two programs exits $rc, want 2"
    grep -q 'different programs' err.txt || fail "leaks: no reason: $(cat err.txt)"
    run leaks --no-timing --baseline "$V8/heap-1.heapsnapshot" --target "$V8/heap-2.heapsnapshot" \
        --final "$V8/small.heapsnapshot"
    [ "$rc" = 2 ] || fail "leaks with an unrelated final exits $rc, want 2"
    run leaks --no-timing --baseline "$V8/heap-1.heapsnapshot" --target "$V8/heap-2.heapsnapshot" \
        --final "$V8/heap-3.heapsnapshot"
    [ "$rc" = 0 ] || fail "leaks of one run exits $rc: $(cat err.txt)"
    run leaks --no-timing --baseline "$A" --target "$V8/heap-2.heapsnapshot"
    [ "$rc" = 2 ] || fail "leaks HPROF/V8 exits $rc, want 2"
fi

run diff --no-timing --json --retained "$A" "$B"
[ "$rc" = 0 ] || fail "diff --retained exits $rc"
python3 - out.txt <<'PY' || fail "diff --retained numbers"
import json, sys
j = json.load(open(sys.argv[1]))
rows = {r["name"]: r for r in j["classes"]}
cart, item = rows["b"], rows["c"]
# The cart is one object in both dumps; what it retains grows by the 1,000 items (each
# item: 24-byte object + 48-byte long[4]) and the larger backing array.
assert cart["count_delta"] == 0 and cart["retained_delta"] >= 1000 * 72, cart
assert item["retained_delta"] == 1000 * 72, item
assert j["classes"][0]["retained_delta"] >= j["classes"][-1]["retained_delta"]
assert j["total"]["retained_b"] > j["total"]["retained_a"]
assert j["inputs"]["related"] is True, j["inputs"]
PY

run diff --no-timing "$A" "$B" --fail-on-growth c=999
[ "$rc" = 1 ] || fail "c grew by 1,000 > 999: exit $rc, want 1"
grep -q '^FAILED --fail-on-growth c=999: 200 -> 1,200 instances (+1,000)$' out.txt ||
    fail "gate line missing"
run diff --no-timing "$A" "$B" --fail-on-growth c=1000 --fail-on-growth 'b=0%'
[ "$rc" = 0 ] || fail "growth within limits exits $rc"
run diff --no-timing "$A" "$B" --fail-on-growth 'c=499%'
[ "$rc" = 1 ] || fail "c grew 500% > 499%: exit $rc"
run diff --no-timing "$A" "$B" --fail-on-growth 'c=500%'
[ "$rc" = 0 ] || fail "c grew 500%, limit 500%: exit $rc"
run diff --no-timing "$A" "$B" --fail-on-growth c=x
[ "$rc" = 2 ] || fail "malformed gate exits $rc"
grep -q "invalid --fail-on-growth 'c=x'" err.txt || fail "malformed gate not quoted"
run diff --no-timing --json "$A" "$B" --fail-on-growth com.example.Typo=1
[ "$rc" = 0 ] || fail "unknown gate class without --strict exits $rc"
grep -q "warning: --fail-on-growth com.example.Typo=1: no class named" err.txt ||
    fail "unknown gate class: no warning"
python3 -c 'import json; j=json.load(open("out.txt")); assert any("com.example.Typo" in w for w in j["warnings"]), j["warnings"]' ||
    fail "unknown gate class: no JSON warning"
run diff --no-timing "$A" "$B" --fail-on-growth com.example.Typo=1 --strict
[ "$rc" = 2 ] || fail "unknown gate class under --strict exits $rc, want 2"
echo "ok: diff/leaks guard their inputs; retained deltas; growth gates"
