#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# ruby_batches.sh: `leaks` on Ruby dumps that carry each object's GC generation (taken under
# ObjectSpace.trace_object_allocations_start; tests/programs/ruby/batches.rb). An address is
# a heap slot, which Ruby gives the next object: matched by address and class alone, a freed
# batch whose slots the next batch took read as 592 leaked Jobs of 0, and a leak in the slots
# of a dropped batch as 638 of 1,000. An address with another generation is another object.
# C-implemented objects (100 StringIOs, a class with no object at the baseline) leak like
# others: they were dropped as a V8 embedder class "renumbered in each snapshot". With the
# generations there is no word that counts may be off. A string leaks on its own when an older
# object alone holds it (50 keys and values of a memo hash, Ruby's most common leak: `leaks`
# said "0 objects"); one a leaked object holds is part of that object (rules/ruby.rules:
# `leak-ignore String owned`). A constant's object has its path from the VM's root, not from
# the machine stack's entry of the same `class Object`. The allocation tracer's table (a
# DATA object of class Object) is named by its struct, not "Object". Each cluster says where
# its objects were made, the sites of most first. Dumps given out of order are refused. An
# object's reference to itself (Ruby writes some) is no cycle.
set -euo pipefail
. "$LEAKRAY_SRC/tests/e2e/ruby_lib.bash"
ruby_start ruby_batches batches.rb
S=$W/heap.json
ruby "$LEAKRAY_SRC/tests/programs/ruby/batches.rb" "$S" "$W/ruby-b.json" b
# the slots Ruby gave a Job of another generation, from the dumps: the case is real
python3 - "$S" <<'PY' || fail "Ruby reused too few Job slots for the test to mean anything"
import json, sys
def jobs(path):
    out = {}
    for line in open(path):
        o = json.loads(line)
        if o.get("type") == "OBJECT" and "generation" in o:
            out.setdefault(o.get("class"), {})[o["address"]] = o["generation"]
    return out
for t, before, after in (("a", 2, 3), ("b", 1, 2)):
    x, y = jobs("%s-%s%d.json" % (sys.argv[1], t, before)), jobs("%s-%s%d.json" % (sys.argv[1], t, after))
    reused = max(sum(1 for a, g in x[c].items() if a in y.get(c, {}) and y[c][a] != g)
                 for c in x)
    print("%s: %d slots reused by an object of the same class" % (t, reused))
    assert reused >= 100, (t, reused)
PY
for t in a b; do
    "$LEAKRAY" leaks --baseline "$S-${t}1.json" --target "$S-${t}2.json" \
        --final "$S-${t}3.json" --json --no-timing --top 0 >"$W/$t.json" || [ $? = 1 ]
done
check "$W/a.json" '[c["count"] for c in d["clusters"] if c["title"] == "StringIO"] ==
    [e["stringio"]] == [100]' "leaks a: not the 100 StringIO objects"
# strings: those a leaked object holds count in it (the StringIOs' buffers); those the older
# memo hash alone holds are a leak of their own (reported as none: every String was ignored)
check "$W/a.json" '[c["count"] for c in d["clusters"] if c["title"] == "String"] == [100]' \
    "leaks a: not the memo's 100 strings alone"
check "$W/a.json" 'not [c for c in d["clusters"] if c["title"] == "Job"]' \
    "leaks a: the freed batch's slots, taken by the next batch, read as leaked Jobs"
check "$W/b.json" '[c["count"] for c in d["clusters"] if c["title"] == "Job"] == [1000]' \
    "leaks b: not the 1,000 leaked Jobs (some sit in the dropped batch's slots)"
refused() { # WHAT PATTERN BASELINE TARGET FINAL: leaks exits 2 saying PATTERN
    local rc=0
    "$LEAKRAY" leaks --baseline "$S-$3.json" --target "$S-$4.json" --final "$S-$5.json" \
        >/dev/null 2>"$W/refused.err" || rc=$?
    [ "$rc" = 2 ] && grep -q "$2" "$W/refused.err" ||
        fail "leaks: $1: exit $rc, $(head -c 300 "$W/refused.err")"
}
# traced dumps given out of order are refused (their generations tell): it ran, exit 0
refused "traced dumps out of order" "b2.json looks taken after .*b1.json: .* made at GC" b2 b1 b3
line=$(grep -n '^  LEAK = ' "$LEAKRAY_SRC/tests/programs/ruby/batches.rb" | cut -d: -f1)
# sql: the stacks table gives each object's allocation site (one frame): heapy's view
"$LEAKRAY" sql --csv "$S-b3.json" "SELECT s.line, count(*) FROM stacks s JOIN objects o
    ON o.id = s.id WHERE o.class = 'Job' GROUP BY 1" >"$W/sites.csv"
[ "$(tail -n +2 "$W/sites.csv" | tr -d '"')" = "$line,1000" ] ||
    fail "sql: the Jobs' allocation site: $(cat "$W/sites.csv")"
# a self-reference Ruby writes (frozen shared strings, IO objects list their own address) is
# no cycle: every component was one such object
"$LEAKRAY" cycles --json --no-timing "$S-b3.json" >"$W/cycles.json"
check "$W/cycles.json" 'all(c["size"] > 1 for c in d["sccs"])' \
    "cycles: an object that lists itself among its references taken for a cycle"
# dumps of two processes (each case ran in its own): refused as such, not as a writer that
# renumbers its objects (Bun's), nor as out of order by their collection counts
refused "two processes' dumps" "dumps of two processes" a1 b2 b3
# --watch of a module: the hint speaks of modules (it spoke of Java interfaces)
"$LEAKRAY" analyze --watch Comparable --no-timing "$S-b3.json" >/dev/null 2>"$W/watch.err" ||
    true
grep -q "watch follows superclasses, not included modules" "$W/watch.err" ||
    fail "--watch of a module: $(head -c 300 "$W/watch.err")"
# each cluster says where its objects were made (heapy's file:line, per leak)
check "$W/b.json" '[c["allocated_at"] for c in d["clusters"] if c["title"] == "Job"] ==
    [[{"site": "'"$LEAKRAY_SRC/tests/programs/ruby/batches.rb:$line"' in new", "count": 1000}]]' \
    "leaks b: the Jobs' cluster does not name where they were made"
"$LEAKRAY" leaks --baseline "$S-b1.json" --target "$S-b2.json" --final "$S-b3.json" \
    --no-timing >"$W/b.txt" || [ $? = 1 ]
grep -q "^    allocated at .*batches.rb:$line in new (1,000)$" "$W/b.txt" ||
    fail "leaks b (text): no 'allocated at' line for the Jobs"
check "$W/a.json" 'not any("too low or too high" in w for w in d.get("warnings", []))' \
    "leaks a: warns that counts may be off although the dumps give generations"
# a constant's objects are held for the process's life: their path starts at the VM's root,
# where the conservative scan of the machine stack also met `class Object` (it was read as
# a local of a running frame)
job=$("$LEAKRAY" sql "$S-b3.json" "SELECT printf('0x%x', id) FROM objects WHERE class = 'Job'
    LIMIT 1" | tail -1)
"$LEAKRAY" path "$S-b3.json" "$job" --json --no-timing >"$W/path.json"
check "$W/path.json" 'd["root"]["kind"] == "global data" and
    d["path"][0]["class"] == "class Object"' "path: a constant's Job not from the VM's root"
# the VM's own DATA objects of class Object are named by their struct: the allocation
# tracer's table, which these dumps carry, read as "Object" (a suspect, `diff`'s growth)
"$LEAKRAY" histo --json --no-timing "$S-b3.json" >"$W/histo.json"
python3 - "$S-b3.json" "$W/histo.json" <<'PY' || fail "histo: a DATA object of class Object not named by its struct"
import collections, json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
obj = [o["address"] for o in lines if o.get("type") == "CLASS" and o.get("name") == "Object"]
want = collections.Counter("(DATA %s)" % o["struct"] for o in lines if o.get("type") == "DATA"
                           and o.get("class") in obj and "struct" in o)
got = {r["name"]: r["count"] for r in json.load(open(sys.argv[2]))["classes"]}
assert want and all(got.get(k) == v for k, v in want.items()), (want, got.get("Object"))
assert any("allocation_info_tracer" in k for k in want), want
PY
echo "ruby_batches: ok"
