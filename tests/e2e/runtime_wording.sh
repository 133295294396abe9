#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# runtime_wording.sh: the verbs speak the runtime of the dump they read. On V8 snapshots
# (tests/data/v8/node24-final from Node 24, the Chromium page of tests/data/browser, and the
# three tests/programs/node/wording.js writes here when Node is installed), on a Dart snapshot (tests/programs/dart/dartheap.py)
# and on a Ruby heap (tests/programs/ruby/leaks.rb, when Ruby is installed):
# - `cycles` without a scope explains itself in the runtime's terms, never the JVM's;
# - the chains `leaks` and `clusters` print name each element by its index, as DevTools
#   (`--[0] (element)-->`), never `[]` (the label the clusters compare, which --json keeps in
#   `edge` beside the index in `name`);
# - `info` and the report's summary count the objects the synthetic root holds, by category as
#   DevTools lists (GC roots) (recomputed here from the snapshot's JSON), not the one root entry;
#   the summary has no "android" key outside HPROF dumps (docs/json.md);
# - `show` and `path --merged` name synthetic nodes as DevTools does ("(root)", "(GC roots)"),
#   never by their class "(synthetic)"; show writes an element "[1]", a weak edge "(weak)",
#   and no "length: 0 (? elements), contents not in the dump" for an array whose elements
#   are its edges;
# - `dupes` leaves out the sections that cannot apply outside JVM dumps (Android's bitmaps;
#   primitive arrays where the heap has none) and keeps its strings;
# - `analyze` labels a detached element with its own name, attributes and all;
# - `analyze` keeps LeakCanary's layout without its Android links, counts the classes `histo`
#   lists where classes are no heap objects (V8, Dart), leaves out threads and primitive
#   arrays the runtime lacks, and names Dart's root object rather than "Unknown GC root type";
#   its --json references add the snapshot's own edge kind (context, element) to LeakCanary's;
# - `path` names the root category a DevTools path starts from, not "synthetic root";
# - `sql`'s objects table gives a V8 node's own name (column `name`), where the class of every
#   synthetic node is "(synthetic)";
# - `threads` on a V8 snapshot says why there are none and where the stack's objects are;
# - Ruby's root categories are named in Ruby's words with the dump's category name, never by
#   the JNI terms of the root kinds they map to ("Global variable in native code"), Ruby 3's
#   "finalizers" included (a Ruby dump written here by hand, so no Ruby is needed);
# and HPROF output keeps its JVM wording (tests/e2e/identity.sh holds it byte for byte).
set -euo pipefail
: "${LEAKRAY:?}" "${LEAKRAY_SRC:?}" "${LEAKRAY_BUILD:?}"
command -v python3 >/dev/null || { echo "SKIP: python3 not installed"; exit 77; }
work="$LEAKRAY_BUILD/tmp/runtime_wording"
rm -rf "$work" && mkdir -p "$work"
fails=0
ok() { echo "ok: $*"; }
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }
# has FILE TEXT / hasnt FILE TEXT: a fixed string is (not) in the output.
has() { if grep -qF -- "$2" "$1"; then ok "$(basename "$1"): has '$2'"; else
    bad "$(basename "$1"): no '$2'"; sed -n 1,12p "$1"; fi; }
hasnt() { if grep -qF -- "$2" "$1"; then bad "$(basename "$1"): has '$2'"; { grep -nF -- "$2" "$1" |
    head -3 || true; }; else ok "$(basename "$1"): no '$2'"; fi; }
run() { local out=$1; shift; "$LEAKRAY" "$@" --no-timing >"$work/$out" 2>&1 || true; }

for n in baseline target final; do
    python3 -c "import lzma, shutil, sys
shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[2], 'wb'))" \
        "$LEAKRAY_SRC/tests/data/v8/node24-$n.heapsnapshot.xz" "$work/node-$n.heapsnapshot"
done
mv "$work/node-final.heapsnapshot" "$work/node.heapsnapshot"
v8s="node"
cp "$LEAKRAY_SRC/tests/data/browser/browser-final.heapsnapshot.gz" "$work/page.heapsnapshot.gz"
v8s="$v8s page"
v8file() { if [ "$1" = page ]; then echo "$work/page.heapsnapshot.gz"; else
    echo "$work/$1.heapsnapshot"; fi; }
if command -v node >/dev/null; then
    mkdir -p "$work/live"
    node "$LEAKRAY_SRC/tests/programs/node/wording.js" "$work/live"
    cp "$work/live/final.heapsnapshot" "$work/live.heapsnapshot"
    v8s="$v8s live"
else
    echo "note: node not installed, no snapshot is written here"
fi
python3 "$LEAKRAY_SRC/tests/programs/dart/dartheap.py" "$work/app.dartheap" new 5
others="$work/app.dartheap"
if command -v ruby >/dev/null; then
    ruby "$LEAKRAY_SRC/tests/programs/ruby/leaks.rb" "$work/ruby.json" "$work/ruby.counts"
    others="$others $work/ruby.json"
else
    echo "note: ruby not installed, the Ruby heap is left out"
fi

# ---- cycles: why the whole heap is not enumerated ----
for n in $v8s; do
    run "$n.cycles.txt" cycles "$(v8file "$n")"
    has "$work/$n.cycles.txt" "JavaScript heaps hold large components of functions"
    hasnt "$work/$n.cycles.txt" "JVM"
done
for f in $others; do
    run "$(basename "$f").cycles.txt" cycles "$f"
    has "$work/$(basename "$f").cycles.txt" "Cycles are not enumerated without a scope"
    hasnt "$work/$(basename "$f").cycles.txt" "JVM"
done

# ---- leaks and clusters: the representative's chain with its element indices ----
run node.leaks.txt leaks --baseline "$work/node-baseline.heapsnapshot" \
    --target "$work/node-target.heapsnapshot" --final "$work/node.heapsnapshot"
has "$work/node.leaks.txt" "--[0] (element)--> NewerBufferOwner"
hasnt "$work/node.leaks.txt" "--[] ("
run node.leaks.json leaks --json --baseline "$work/node-baseline.heapsnapshot" \
    --target "$work/node-target.heapsnapshot" --final "$work/node.heapsnapshot"
if python3 - "$work/node.leaks.json" <<'PY'; then
import json, sys
c = [c for c in json.load(open(sys.argv[1]))['clusters'] if c['title'] == 'NewerBufferOwner'][0]
last = c['chain'][-1]
assert (last['edge'], last['name'], last['edge_kind']) == ('[]', '[0]', 'element'), last
PY
    ok "leaks --json: the chain's element has edge [] and name [0]"
else
    bad "leaks --json: the chain's element has edge [] and name [0]"
fi
if [ -d "$work/live" ]; then
    run live.leaks.txt leaks --baseline "$work/live/baseline.heapsnapshot" \
        --target "$work/live/target.heapsnapshot" --final "$work/live.heapsnapshot"
    has "$work/live.leaks.txt" "--keptItems (property)--> Array"
    has "$work/live.leaks.txt" "--[12] (element)--> LeakedItem"
    hasnt "$work/live.leaks.txt" "--[] ("
fi
for n in $v8s; do
    run "$n.clusters.txt" clusters "$(v8file "$n")" --top 0
    hasnt "$work/$n.clusters.txt" "--[] ("
    has "$work/$n.clusters.txt" "--[1] (element)--> (GC roots)"
done
for f in $others; do
    run "$(basename "$f").clusters.txt" clusters "$f" --top 0
    hasnt "$work/$(basename "$f").clusters.txt" "--[] ("
done
has "$work/app.dartheap.clusters.txt" "--[0] (element)--> CheckoutPageState"

# ---- info, report: what the synthetic root holds ----
for n in $v8s; do
    run "$n.info.txt" info "$(v8file "$n")"
    has "$work/$n.info.txt" "objects held directly by the root, in "
    has "$work/$n.info.txt" "  (Global handles)"
    hasnt "$work/$n.info.txt" "synthetic root"
done
has "$work/node.info.txt" "(root): user roots (global objects)"
run app.info.txt info "$work/app.dartheap"
has "$work/app.info.txt" "4 objects held directly by the root, in 2 categories"
for n in node live; do
[ -f "$work/$n.heapsnapshot" ] || continue
run "$n.info.json" info --json "$work/$n.heapsnapshot"
"$LEAKRAY" report "$work/$n.heapsnapshot" --format json -o "$work/$n.report.json" \
    --no-timing >/dev/null 2>&1 || true
if python3 - "$work/$n.heapsnapshot" "$work/$n.info.json" "$work/$n.report.json" <<'PY'; then
import json, sys
snap = json.load(open(sys.argv[1]))
meta = snap['snapshot']['meta']
nf, ef = len(meta['node_fields']), len(meta['edge_fields'])
ntypes, etypes = meta['node_types'][0], meta['edge_types'][0]
nodes, edges, strings = snap['nodes'], snap['edges'], snap['strings']
first = [0]
for i in range(len(nodes) // nf):
    first.append(first[-1] + nodes[i * nf + meta['node_fields'].index('edge_count')])
syn = lambda i: ntypes[nodes[i * nf]] == 'synthetic'
# breadth first through synthetic nodes; each holds the other nodes of its non-weak edges
want, held, queue, seen = [], set(), [0], {0}
while queue:
    s = queue.pop(0)
    mine = set()
    for e in range(first[s], first[s + 1]):
        to = edges[e * ef + 2] // nf
        if etypes[edges[e * ef]] == 'weak':
            continue
        if not syn(to):
            mine.add(to)
        elif to not in seen:
            seen.add(to)
            queue.append(to)
    if mine:
        name = strings[nodes[s * nf + 1]] or '(root): user roots (global objects)'
        want.append({'name': name, 'objects': len(mine)})
        held |= mine
roots = json.load(open(sys.argv[2]))['roots']
assert roots['objects'] == len(held), (roots['objects'], len(held))
assert roots['categories'] == want, (roots['categories'], want)
summary = json.load(open(sys.argv[3]))['summary']
assert (summary['root_objects'], summary['root_categories']) == (len(held), len(want)), summary
assert 'android' not in summary, summary
print('  %d objects in %d categories' % (len(held), len(want)))
PY
    ok "$n: info --json, report: the root's categories as the snapshot has them"
else
    bad "$n: info --json, report: the root's categories as the snapshot has them"
fi
done

# ---- report: the biggest objects by the class `top` prints, the node's own name beside ----
"$LEAKRAY" top --json --no-timing --top 400 "$work/node.heapsnapshot" >"$work/node.top.json" \
    2>/dev/null || true
"$LEAKRAY" report --format json --no-timing "$work/node.heapsnapshot" \
    -o "$work/node.objects.json" >/dev/null 2>&1 || true
if python3 - "$work/node.top.json" "$work/node.objects.json" <<'PY'
import json, sys
top = json.load(open(sys.argv[1]))
cls = {r['id']: r['class'] for r in top['objects']}
objs = json.load(open(sys.argv[2]))['top_objects']
named = 0
for o in objs:
    assert o['id'] in cls, o
    assert o['class'] == cls[o['id']], (o, cls[o['id']])
    named += 'name' in o
    assert o.get('name') != o['class'], o
kinds = {o['kind'] for o in objs if 'name' in o}
assert named and {'closure', 'code'} <= kinds, kinds
print('  %d objects, %d named beside their class' % (len(objs), named))
PY
then
    ok "report: biggest objects by top's class, own name beside"
else
    bad "report: biggest objects by top's class, own name beside"
fi

# ---- show: synthetic nodes by name, indices and weak edges as DevTools writes them ----
run node.show1.txt show "$work/node.heapsnapshot" @1 --limit 0
has "$work/node.show1.txt" "@1 (root)"
has "$work/node.show1.txt" "  @3 (GC roots)  [1] (element)"
hasnt "$work/node.show1.txt" "(synthetic)"
run node.show3.txt show "$work/node.heapsnapshot" @3 --limit 0
has "$work/node.show3.txt" "dominator:     @1 (root)"
has "$work/node.show3.txt" "  @41 (Stack roots)  [19] (element)"
hasnt "$work/node.show3.txt" "(synthetic)"
run node.show-fn.txt show "$work/node.heapsnapshot" @56741 --limit 0
has "$work/node.show-fn.txt" ".6 (weak)"
hasnt "$work/node.show-fn.txt" "(weak, weak)"
run node.show-arr.txt show "$work/node.heapsnapshot" @76321
run app.show-list.txt show "$work/app.dartheap" @5
for f in node.show-arr.txt app.show-list.txt; do
    hasnt "$work/$f" "contents not in the dump"
    hasnt "$work/$f" "(? elements)"
done
has "$work/app.show-list.txt" "  @9 CheckoutPageState  [0] (element)"
run node.show3.json show --json "$work/node.heapsnapshot" @3
if python3 -c "import json, sys
o = json.load(open(sys.argv[1]))['object']
assert o['class'] == '(GC roots)' and o['dominator']['class'] == '(root)', o
assert o['edges'][0]['class'] == '(Bootstrapper)', o['edges'][0]" "$work/node.show3.json"; then
    ok "show --json: synthetic nodes by name"
else
    bad "show --json: synthetic nodes by name"
fi

for n in $v8s; do
    run "$n.merged.txt" path "$(v8file "$n")" --class Object --merged
    has "$work/$n.merged.txt" " @1 (root)  (GC root: "
    hasnt "$work/$n.merged.txt" "(synthetic)"
done

# ---- dupes: no Android bitmaps, no primitive arrays where there are none ----
for f in "$work/node.heapsnapshot" "$work/page.heapsnapshot.gz" $others; do
    b=$(basename "$f")
    run "$b.dupes.txt" dupes "$f"
    hasnt "$work/$b.dupes.txt" "android.graphics.Bitmap"
    hasnt "$work/$b.dupes.txt" "primitive arrays"
    has "$work/$b.dupes.txt" "Duplicate strings: "
done
has "$work/node.heapsnapshot.dupes.txt" "Duplicate JS strings (memlab's string analysis)"

# ---- analyze: LeakCanary's layout in the runtime's terms ----
for f in "$work/node.heapsnapshot" "$work/page.heapsnapshot.gz" $others; do
    b=$(basename "$f")
    run "$b.analyze.txt" analyze "$f"
    for t in squ.re/leaks square.github.io LeakCanary "Class count: 0" \
             "Thread count: 0" "Primitive array count: 0" "Unknown GC root type" \
             "Heap dump timestamp: 0"; do
        hasnt "$work/$b.analyze.txt" "$t"
    done
    has "$work/$b.analyze.txt" "but leakray could not find a strong reference path"
done
has "$work/node.heapsnapshot.analyze.txt" "Class count: 184"
# a detached element's trace line names its tag (its class); its label, its own name with
# the attributes DevTools and `leaks` show: one of many divs told apart
has "$work/page.heapsnapshot.gz.analyze.txt" 'Element: Detached <div class="panel" id="panel-0">'
run app.watch.txt analyze "$work/app.dartheap" --watch CheckoutPageState
has "$work/app.watch.txt" "GC Root: Root object of the snapshot"
hasnt "$work/app.watch.txt" "Unknown GC root type"
hasnt "$work/app.dartheap.analyze.txt" "GC Root: Global object"
run app.watch.json analyze --json "$work/app.dartheap" --watch CheckoutPageState
hasnt "$work/app.watch.json" "Unknown GC root type"
run node.watch.json analyze --json "$work/node.heapsnapshot" --watch NewerBufferOwner
if python3 -c "import json, sys
t = json.load(open(sys.argv[1]))['traces'][0]['elements']
refs = [(e['reference']['type'], e['reference']['edge_kind']) for e in t[:-1]]
assert ('instance_field', 'context') in refs and ('array_entry', 'element') in refs, refs" \
    "$work/node.watch.json"; then
    ok "analyze --json: a trace's references carry the snapshot's edge kinds"
else
    bad "analyze --json: a trace's references carry the snapshot's edge kinds"
fi

# ---- path: the root category ----
run node.path.txt path "$work/node.heapsnapshot" @95607
has "$work/node.path.txt" "GC root: user root (global object) (DevTools retaining path"
run page.path.txt path "$work/page.heapsnapshot.gz" @34565
has "$work/page.path.txt" "GC root: (GC roots) / (Global handles) (DevTools retaining path"
run page.path.json path --json "$work/page.heapsnapshot.gz" @34565
has "$work/page.path.json" '"description": "(GC roots) / (Global handles)"'
run node.path-c.txt path "$work/node.heapsnapshot" @95607 --collapse
has "$work/node.path-c.txt" "GC root: (GC roots) / (Stack roots)"
for f in node.path.txt page.path.txt node.path-c.txt; do hasnt "$work/$f" "synthetic root"; done

# ---- sql: the node's name ----
"$LEAKRAY" sql "$work/node.heapsnapshot" --csv \
    "SELECT id, class, name FROM objects WHERE id IN (1, 41, 56741) ORDER BY id" \
    >"$work/node.sql.csv" 2>&1 || true
if [ "$(tr -d '\r' <"$work/node.sql.csv")" = "id,class,name
1,(synthetic),(root)
41,(synthetic),(Stack roots)
56741,Function,setInterval" ]; then
    ok "sql: objects.name"
else
    bad "sql: objects.name"; cat "$work/node.sql.csv"
fi

# ---- threads ----
run node.threads.txt threads "$work/node.heapsnapshot"
has "$work/node.threads.txt" "a V8 heap snapshot records no thread stacks"
has "$work/node.threads.txt" "(Stack roots)"

# ---- Ruby's root categories ----
printf '%s\n' '{"type":"ROOT", "root":"finalizers", "references":["0x10"]}' \
    '{"type":"ROOT", "root":"end_proc", "references":["0x20"]}' \
    '{"address":"0x10", "type":"OBJECT", "class":"0x30", "references":[], "memsize":40}' \
    '{"address":"0x20", "type":"OBJECT", "class":"0x30", "references":["0x10"], "memsize":40}' \
    '{"address":"0x30", "type":"CLASS", "name":"Foo", "references":[], "memsize":400}' \
    >"$work/mini.rb.json"
run mini.info.txt info "$work/mini.rb.json"
has "$work/mini.info.txt" "  Finalizer table (finalizers)"
has "$work/mini.info.txt" "  Other root category (end_proc, object_id, ...)"
hasnt "$work/mini.info.txt" "Unknown GC root type"
run mini.path.txt path "$work/mini.rb.json" 0x10
has "$work/mini.path.txt" "GC root: Finalizer table (finalizers)"
if [ -f "$work/ruby.json" ]; then
    run ruby.info.txt info "$work/ruby.json"
    has "$work/ruby.info.txt" "  Machine stack and registers (machine_context)"
    has "$work/ruby.info.txt" "  Global variable (global_tbl, global_list)"
    has "$work/ruby.info.txt" "  VM internal reference (vm)"
    for f in ruby.info.txt ruby.json.analyze.txt; do
        hasnt "$work/$f" "in native code"
    done
fi

if [ "$fails" -gt 0 ]; then
    echo "$fails check(s) failed"
    exit 1
fi
echo "all checks passed"
