#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# convert_java.sh: `leakray convert` on a dump written at test time (HotSpot, live=false, from
# tests/programs/collapse/CollapseDump.java), checks that need no peer: the object reachable
# only through a WeakReference (WeakOnly) and other garbage are left out, reference referents
# of strongly reachable objects stay as `weak` edges named "referent", ids are the dump's
# when they fit 32 bits (else 2*ordinal+1; the JVM decides where its heap lies), leakray
# reading the output (plain and .gz) back computes the original's per-class counts, shallow
# and retained sizes, and the same dump converts byte-identically.
set -euo pipefail
. "$LEAKRAY_SRC/tests/e2e/foundation_lib.bash"
fdn_init convert_java
fdn_need_java
D=$FDN_TMP/collapse.hprof
javac -d "$FDN_TMP/classes" "$LEAKRAY_SRC"/tests/programs/collapse/*.java || fdn_fail "javac failed"
java -Xmx256m -cp "$FDN_TMP/classes" CollapseDump "$D" || fdn_fail "CollapseDump failed"

O=$FDN_TMP/out.heapsnapshot
"$LEAKRAY" convert "$D" -o "$O" --json --no-timing >"$FDN_TMP/conv.json"
"$LEAKRAY" convert "$D" -o "$O.gz" --no-timing >/dev/null
"$LEAKRAY" convert "$D" -o "$FDN_TMP/again.heapsnapshot" --no-timing >/dev/null
cmp -s "$O" "$FDN_TMP/again.heapsnapshot" || fdn_fail "two conversions differ"
gzip -dc "$O.gz" | cmp -s - "$O" || fdn_fail ".gz output differs from the plain one"
"$LEAKRAY" histo "$D" --json --no-timing >"$FDN_TMP/histo.json"
for x in "$D" "$O" "$O.gz"; do
    "$LEAKRAY" top "$x" --model strong --by class --top 0 --json --no-timing \
        >"$FDN_TMP/$(basename "$x").top.json"
done
python3 - "$FDN_TMP" <<'PY' || fdn_fail "checks above"
import json, sys
t = sys.argv[1]
fails = 0
def check(ok, what):
    global fails
    print(("ok: " if ok else "FAIL: ") + what, file=sys.stderr)
    fails += not ok
conv = json.load(open(t + "/conv.json"))
s = json.load(open(t + "/out.heapsnapshot"))
nf = len(s["snapshot"]["meta"]["node_fields"])
et = s["snapshot"]["meta"]["edge_types"][0]
names = [s["strings"][s["nodes"][i + 1]] for i in range(0, len(s["nodes"]), nf)]
check("WeakOnly" not in names, "WeakOnly (weakly reachable only) is not written")
check(names.count("LeakedController") == 1 and names.count("StatelessElement") == 75,
      "the chain is written")
histo = json.dumps(json.load(open(t + "/histo.json")))
check("WeakOnly" in histo, "WeakOnly is in the original dump")
check(conv["dropped_objects"] > 0, "dropped %d objects" % conv["dropped_objects"])
ids = [s["nodes"][i + 2] for i in range(0, len(s["nodes"]), nf)]
nsyn = conv["synthetic_nodes"]
if conv["ids"] == "ordinal":
    check(ids == [2 * k + 1 for k in range(len(ids))], "ids are 2*ordinal+1")
else:
    check(conv["ids"] == "dump" and ids[:nsyn] == [2 * k + 1 for k in range(nsyn)]
          and len(set(ids)) == len(ids) and all(2 * nsyn <= i < 2**32 for i in ids[nsyn:]),
          "the dump's ids fit 32 bits: kept, unique, synthetic ones 1, 3, 5...")
weak = [s["strings"][s["edges"][j + 1]] for j in range(0, len(s["edges"]), 3)
        if et[s["edges"][j]] == "weak"]
check(len(weak) == conv["weak_edges"] > 0 and set(weak) == {"referent"},
      "%d weak edges, all named referent" % len(weak))
def rows(f):
    j = json.load(open(t + "/" + f))
    return j, {c["class"]: (c["count"], c["shallow"], c["retained"]) for c in j["classes"]
               if not c["class"].startswith("class ") and c["class"] != "(synthetic)"}
oj, orig = rows("collapse.hprof.top.json")
for f in ("out.heapsnapshot.top.json", "out.heapsnapshot.gz.top.json"):
    bj, back = rows(f)
    bad = [(k, orig.get(k), back.get(k)) for k in sorted(set(orig) | set(back))
           if orig.get(k) != back.get(k)]
    check(not bad and bj["reachable_bytes"] == oj["reachable_bytes"],
          "%s: %d classes equal the original (diff %s)" % (f, len(orig), bad[:4]))
sys.exit(1 if fails else 0)
PY
echo "PASS"
