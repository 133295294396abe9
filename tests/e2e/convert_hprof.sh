#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# convert_hprof.sh: `leakray convert` on HPROF fixtures (RI.hprof, sun_jdk6_18_x64.hprof).
# 1. The output is a V8 snapshot DevTools reads without rewriting it: only object and
#    synthetic nodes, no shortcut edges, node 0 -> "(GC roots)" -> one sub-root per root
#    kind, element edges only below the root, weak edges string-named, strings unique.
# 2. leakray's own per-class numbers for the original (`top --by class --model strong`:
#    count, shallow, retained without double counting) equal Chrome DevTools' Summary of
#    the converted file as committed in tests/e2e/expected/convert/ (made by
#    scripts/golden-convert.sh with heap-snapshot-toolkit@1.1.3); DevTools' total equals
#    leakray's reachable bytes, and its class-object rows number the class objects written.
# 3. leakray reading the converted file back computes the same per-class numbers.
# 4. When the toolkit is installed ($HST_DIR, default ${TMPDIR:-/tmp}/leakray-hst), DevTools'
#    code runs live on today's output and must reproduce the committed golden exactly.
# 5. OUT is never partial: errors leave an existing OUT untouched and no temporary file.
set -euo pipefail
. "$LEAKRAY_SRC/tests/e2e/foundation_lib.bash"
fdn_init convert_hprof
fdn_fixtures
EXP=$LEAKRAY_SRC/tests/e2e/expected/convert
HST=${HST_DIR:-${TMPDIR:-/tmp}/leakray-hst}

cat >"$FDN_TMP/check.py" <<'PY'
import json, sys
snap_path, conv_path, top_path, back_path, golden_path, name = sys.argv[1:7]
fails = []
def check(ok, what):
    print(("ok: " if ok else "FAIL: ") + name + ": " + what, file=sys.stderr)
    if not ok:
        fails.append(what)

s = json.load(open(snap_path))
conv = json.load(open(conv_path))
meta = s["snapshot"]["meta"]
nf, ef = len(meta["node_fields"]), len(meta["edge_fields"])
ntypes, etypes = meta["node_types"][0], meta["edge_types"][0]
nodes, edges, strings = s["nodes"], s["edges"], s["strings"]
n, e = len(nodes) // nf, len(edges) // ef
check(n == s["snapshot"]["node_count"] == conv["nodes"], "node_count %d" % n)
check(e == s["snapshot"]["edge_count"] == conv["edges"], "edge_count %d" % e)
check(sum(nodes[i * nf + 4] for i in range(n)) == e, "edge_count fields sum to the edges")
used = {ntypes[nodes[i * nf]] for i in range(n)}
check(used <= {"object", "synthetic"}, "node types used: %s" % sorted(used))
check(len(strings) == len(set(strings)), "strings are unique (DevTools keys classes by index)")
check(all(edges[j * ef + 2] % nf == 0 and edges[j * ef + 2] // nf < n for j in range(e)),
      "every to_node is a node index")
kinds = [etypes[edges[j * ef]] for j in range(e)]
check("shortcut" not in kinds and "hidden" not in kinds, "no shortcut or hidden edges")
check(all(edges[j * ef + 1] < len(strings) for j in range(e) if kinds[j] == "weak"),
      "weak edges carry string names")
check(kinds.count("weak") == conv["weak_edges"], "weak edges: %d" % conv["weak_edges"])
name_of = lambda i: strings[nodes[i * nf + 1]]
check(ntypes[nodes[0]] == "synthetic" and nodes[4] == 1, "node 0 synthetic, one edge")
gc = edges[2] // nf
check(name_of(gc) == "(GC roots)" and ntypes[nodes[gc * nf]] == "synthetic", "(GC roots)")
# Edge ranges per node, to walk (GC roots) -> sub-roots.
first = [0] * (n + 1)
for i in range(n):
    first[i + 1] = first[i] + nodes[i * nf + 4]
subs = [edges[j * ef + 2] // nf for j in range(first[gc], first[gc + 1])]
check(all(ntypes[nodes[x * nf]] == "synthetic" and name_of(x).startswith("(") for x in subs),
      "sub-roots: %s" % [name_of(x) for x in subs])
check(all(kinds[j] == "element" for x in [0, gc] + subs for j in range(first[x], first[x + 1])),
      "root, (GC roots) and sub-roots hold everything through element edges")
objs = [i for i in range(n) if ntypes[nodes[i * nf]] == "object"]
check(len(objs) == n - conv["synthetic_nodes"], "objects written: %d" % len(objs))

top = json.load(open(top_path))
lr = {c["class"]: (c["count"], c["shallow"], c["retained"]) for c in top["classes"]}
check(len(lr) == len(top["classes"]), "class names are unique in this fixture")
gold, total = {}, None
for line in open(golden_path):
    f = line.rstrip("\n").split("\t")
    if f[0] == "#total":
        total = int(f[1])
        continue
    gold[f[0]] = (int(f[1]), int(f[2]), int(f[3]))
inst = {k: v for k, v in gold.items() if not k.startswith("class ")}
bad = [(k, lr.get(k), inst.get(k)) for k in sorted(set(lr) | set(inst)) if lr.get(k) != inst.get(k)]
check(not bad, "%d classes: leakray count/shallow/retained == DevTools Summary (diff: %s)"
      % (len(lr), bad[:5]))
check(total == top["reachable_bytes"] == conv["self_bytes"],
      "DevTools total %s == leakray reachable bytes %d" % (total, top["reachable_bytes"]))
check(sum(v[0] for v in gold.values()) == len(objs) == top["reachable_objects"],
      "DevTools rows (instances and %d class objects) count every object written, %d"
      % (len(gold) - len(inst), len(objs)))

back = json.load(open(back_path))
rb = {c["class"]: (c["count"], c["shallow"], c["retained"]) for c in back["classes"]
      if not c["class"].startswith("class ") and c["class"] != "(synthetic)"}
bad = [(k, lr.get(k), rb.get(k)) for k in sorted(set(lr) | set(rb)) if lr.get(k) != rb.get(k)]
check(not bad, "leakray on the converted file == leakray on the original (diff: %s)" % bad[:5])
sys.exit(1 if fails else 0)
PY

cat >"$FDN_TMP/classes.mjs" <<'JS'
import {pathToFileURL} from 'node:url';
import {createReadStream} from 'node:fs';
const {parse} = await import(pathToFileURL(process.argv[3]).href);
const esc = s => String(s).replace(/\\/g, '\\\\').replace(/\t/g, '\\t').replace(/\n/g, '\\n');
console.warn = () => {}; console.time = () => {}; console.timeEnd = () => {};
const snap = await parse(createReadStream(process.argv[2], 'utf-8'));
const agg = snap.aggregatesWithFilter({});
const rows = Object.values(agg).map(a => [esc(a.name), a.count, a.self, a.maxRet].join('\t'));
rows.sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
process.stdout.write(`#total\t${snap.getStatistics().total}\n` + rows.join('\n') + '\n');
JS
hst_index=$HST/node_modules/heap-snapshot-toolkit/index.js
live=0
if [ -f "$hst_index" ] && command -v node >/dev/null; then
    live=1
else
    echo "note: heap-snapshot-toolkit not installed in $HST; live DevTools comparison skipped" \
        "(scripts/golden-convert.sh installs it)" >&2
fi

for fx in RI.hprof sun_jdk6_18_x64.hprof; do
    f=$FDN_FIX/$fx
    [ -f "$f" ] || fdn_skip "fixture $fx missing"
    out=$FDN_TMP/$fx.heapsnapshot
    "$LEAKRAY" convert "$f" -o "$out" --json --no-timing >"$FDN_TMP/$fx.conv.json"
    "$LEAKRAY" top "$f" --model strong --by class --top 0 --json --no-timing \
        >"$FDN_TMP/$fx.top.json"
    "$LEAKRAY" top "$out" --model strong --by class --top 0 --json --no-timing \
        >"$FDN_TMP/$fx.back.json"
    python3 "$FDN_TMP/check.py" "$out" "$FDN_TMP/$fx.conv.json" "$FDN_TMP/$fx.top.json" \
        "$FDN_TMP/$fx.back.json" "$EXP/$fx.classes.tsv" "$fx" || fdn_fail "$fx: checks above"
    if [ "$live" = 1 ]; then
        node --max-old-space-size=4096 "$FDN_TMP/classes.mjs" "$out" "$hst_index" \
            >"$FDN_TMP/$fx.live.tsv" || fdn_fail "$fx: heap-snapshot-toolkit failed to load it"
        cmp -s "$FDN_TMP/$fx.live.tsv" "$EXP/$fx.classes.tsv" ||
            fdn_fail "$fx: DevTools today differs from the golden:" \
                "diff $FDN_TMP/$fx.live.tsv $EXP/$fx.classes.tsv"
        echo "ok: $fx: live DevTools Summary == golden" >&2
    fi
done

# The GC's pending list (JDK 6's through Reference.next, JDK 9+'s through discovered) owns
# nothing in the strong model, and nothing in the snapshot either: read back, every class and
# every object has the strong model's numbers (278 SoftReferences of sun_jdk6_18_x32 were
# written reachable through it).
fx=sun_jdk6_18_x32.hprof
if [ -f "$FDN_FIX/$fx" ]; then
    out=$FDN_TMP/$fx.heapsnapshot
    "$LEAKRAY" convert "$FDN_FIX/$fx" -o "$out" --no-timing >/dev/null
    "$LEAKRAY" top "$FDN_FIX/$fx" --model strong --top 0 --json --no-timing >"$FDN_TMP/pl.a.json"
    "$LEAKRAY" top "$out" --model strong --top 0 --json --no-timing >"$FDN_TMP/pl.b.json"
    python3 - "$FDN_TMP/pl.a.json" "$FDN_TMP/pl.b.json" <<'PY' || fdn_fail "$fx: pending list"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
ra = {int(o["id"], 16): o["retained"] for o in a["objects"]}
rb = {int(o["id"][1:]): o["retained"] for o in b["objects"]}
assert a["reachable_bytes"] == b["reachable_bytes"], (a["reachable_bytes"], b["reachable_bytes"])
# (the snapshot's own synthetic nodes, its root and "(GC roots)", have no dump id)
bad = [(hex(k), v, rb.get(k)) for k, v in ra.items() if rb.get(k) != v]
assert not bad, bad[:5]
print(f"ok: sun_jdk6_18_x32: {len(ra)} objects, retained sizes as the strong model's",
      file=sys.stderr)
PY
fi

# Never a partial OUT.
f=$FDN_FIX/RI.hprof
keep=$FDN_TMP/keep.heapsnapshot
echo "previous contents" >"$keep"
printf 'JAVA PROFILE 1.0.2\0\0\0\0\x08' >"$FDN_TMP/bad.hprof"
rc=0
"$LEAKRAY" convert "$FDN_TMP/bad.hprof" -o "$keep" >/dev/null 2>&1 || rc=$?
[ "$rc" = 3 ] || fdn_fail "truncated input should exit 3, got $rc"
[ "$(cat "$keep")" = "previous contents" ] || fdn_fail "failed convert touched OUT"
rc=0
"$LEAKRAY" convert "$f" -o "$FDN_TMP/no/such/dir/x.heapsnapshot" >/dev/null 2>"$FDN_TMP/err" ||
    rc=$?
[ "$rc" = 4 ] || fdn_fail "unwritable OUT should exit 4, got $rc"
grep -q "x.heapsnapshot" "$FDN_TMP/err" || fdn_fail "I/O error does not name OUT"
rc=0
"$LEAKRAY" convert "$f" >/dev/null 2>&1 || rc=$?
[ "$rc" = 2 ] || fdn_fail "missing -o should exit 2, got $rc"
leftovers=$(find "$FDN_TMP" -name '.*.heapsnapshot.*' | wc -l)
[ "$leftovers" = 0 ] || fdn_fail "$leftovers temporary files left behind"
echo "ok: errors leave OUT untouched and no temporary file" >&2
echo "PASS"
