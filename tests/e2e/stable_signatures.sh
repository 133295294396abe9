#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# stable_signatures.sh: one leak, one signature in the store from run to run, though the JVM
# names a lambda's and a proxy's class anew in each (tests/programs/lambdas/LambdaLeaks.java,
# dumped twice: once as it is, once with other lambda and proxy classes made first and
# -Xshare:off, so the leaking lambda and proxy classes get other numbers and addresses):
#  - analyze's `signature` stays Shark's (over the names the dump gives: it differs between
#    the two dumps for the lambda and the proxy leaks, and the text's Signature lines equal
#    the JSON's), and those two groups and their traces carry a `stable_signature`, equal in
#    both dumps; the named listener's leak has none (its signature is stable as it is);
#  - a lambda (a proxy) leaking a Session beside one leaking a Page, in the same list, is a
#    leak of its own: its stable signature differs from the Page's, though both lambdas'
#    classes read `LambdaLeaks$$Lambda` (the stable signature names the leaking class then);
#  - one lambda site holding connections of two subclasses, registered in the other order
#    in the second run, is one group with one stable signature in both (it was the first
#    trace's, which changed with the order);
#  - the store, fed both dumps (as versions 1 and 2), holds six leaks, each seen in both,
#    and `store diff --fail-on-new` from 1 to 2 finds no new leak;
#  - the lambda's class named the JVM's way (Class.getName(), jmap -histo: '/' where the dump
#    writes '+') is that class to `instances`, `path --merged` and `--watch` (it was "no
#    class named ...").
set -euo pipefail
: "${LEAKRAY:?}" "${LEAKRAY_SRC:?}" "${LEAKRAY_BUILD:?}"
. "$LEAKRAY_SRC/tests/e2e/need_lib.bash"
need_tools javac java python3
work="$LEAKRAY_BUILD/tmp/stable_signatures"
rm -rf "$work"
mkdir -p "$work/classes"
fail() { echo "FAIL: $*" >&2; exit 1; }
javac -d "$work/classes" "$LEAKRAY_SRC"/tests/programs/leaks/KeyedWeakReference.java \
    "$LEAKRAY_SRC"/tests/programs/lambdas/LambdaLeaks.java
java -cp "$work/classes" com.example.lambdas.LambdaLeaks "$work/a.hprof" 0 > /dev/null
java -Xshare:off -cp "$work/classes" com.example.lambdas.LambdaLeaks "$work/b.hprof" 1 > /dev/null
for d in a b; do
    "$LEAKRAY" analyze "$work/$d.hprof" --json --no-timing > "$work/$d.json"
    "$LEAKRAY" analyze "$work/$d.hprof" --no-timing > "$work/$d.txt"
done
python3 - "$work" <<'PY' || fail "analyze's signatures"
import json, re, sys
w = sys.argv[1]
kinds = {}
for d in "ab":
    j = json.load(open("%s/%s.json" % (w, d)))
    text = open("%s/%s.txt" % (w, d)).read()
    sigs = [g["signature"] for g in j["application_leaks"]]
    assert re.findall(r"^Signature: (\w+)$", text, re.M) == sigs, (d, sigs)
    assert len(sigs) == 6, (d, sigs)
    stables = set()
    for g in j["application_leaks"]:
        t = j["traces"][g["traces"][0]]
        names = [e["class"] for e in t["elements"]]
        kind = ("proxy" if any("$Proxy" in n for n in names) else
                "lambda" if any("$$Lambda" in n for n in names) else "named")
        leaking = t["class"].rsplit("$", 1)[-1]
        kind += " " + ("Conn" if leaking.endswith("Conn") else leaking)
        stables.add(g.get("stable_signature", g["signature"]))
        for x in [g] + [j["traces"][i] for i in g["traces"]]:
            assert x.get("stable_signature") != x["signature"], x
            assert ("stable_signature" in x) == (not kind.startswith("named")), (kind, x)
        kinds.setdefault(kind, []).append((g["signature"], g.get("stable_signature"), names))
    assert len(stables) == 6, (d, stables)  # never two leaks under one stable signature
assert sorted(kinds) == ["lambda Conn", "lambda Page", "lambda Session", "named Page",
                         "proxy Page", "proxy Session"], kinds
for kind, ((s1, st1, n1), (s2, st2, n2)) in kinds.items():
    assert st1 == st2, (kind, st1, st2)
    if kind.startswith("named"):
        assert s1 == s2 and n1 == n2, (kind, s1, s2)
    else:
        # the premise: the JVM named the classes differently, and Shark's signature follows
        assert n1 != n2 and s1 != s2, (kind, n1, n2)
        assert re.match(r"[0-9a-f]{40}$", st1), st1
PY
db="$work/store.db"
"$LEAKRAY" store ingest --db "$db" --version 1 "$work/a.json" > "$work/ingest.txt" 2>&1 &&
    "$LEAKRAY" store ingest --db "$db" --version 2 "$work/b.json" >> "$work/ingest.txt" 2>&1 ||
    fail "store ingest: $(cat "$work/ingest.txt")"
# the second run's dump brings no new leak: a CI gate on new leaks stays green
"$LEAKRAY" store diff --db "$db" --from 1 --to 2 --fail-on-new > "$work/diff.txt" 2>&1 ||
    fail "store diff --fail-on-new: $(cat "$work/diff.txt")"
grep -q " 0 new," "$work/diff.txt" || fail "store diff: $(head -1 "$work/diff.txt")"
"$LEAKRAY" store leaks --db "$db" --json > "$work/leaks.json"
python3 - "$work/leaks.json" "$work/a.json" <<'PY' || fail "the store's leaks"
import json, sys
j = json.load(open(sys.argv[1]))
a = json.load(open(sys.argv[2]))
rows = j["leaks"]
want = sorted(g.get("stable_signature", g["signature"]) for g in a["application_leaks"])
assert sorted(r["signature"] for r in rows) == want, (rows, want)
assert all(r["dumps"] == 2 for r in rows), rows
PY
# the signature `analyze` prints (LeakCanary's) finds the leak the store keeps by its stable
# one ("no leak with signature ..." for every lambda and proxy leak)
python3 -c 'import json, sys
for g in json.load(open(sys.argv[1]))["application_leaks"]:
    if "stable_signature" in g:
        print(g["signature"], g["stable_signature"])' \
    "$work/b.json" >"$work/pairs.txt"
[ -s "$work/pairs.txt" ] || fail "no group with a stable signature"
while read -r lc stable; do
    "$LEAKRAY" store show --db "$db" "${lc:0:12}" >"$work/show.txt" 2>&1 ||
        fail "store show ${lc:0:12}: $(cat "$work/show.txt")"
    head -1 "$work/show.txt" | grep -q "^Leak $stable " ||
        fail "store show ${lc:0:12}: $(head -1 "$work/show.txt"), not $stable"
done <"$work/pairs.txt"
pat='com[.]example[.]lambdas[.]LambdaLeaks[$][$]Lambda[^ ]*+0x[0-9a-f]*'
lambda=$("$LEAKRAY" histo "$work/a.hprof" | grep -o "$pat" | head -1)
[ -n "$lambda" ] || fail "no lambda class in the histogram"
jvm_name=${lambda/+//}
"$LEAKRAY" instances "$work/a.hprof" "$jvm_name" --no-timing > "$work/inst.txt" ||
    fail "instances $jvm_name: exit $?"
grep -qF "of $lambda" "$work/inst.txt" || fail "instances $jvm_name: $(head -1 "$work/inst.txt")"
"$LEAKRAY" path "$work/a.hprof" --class "$jvm_name" --merged --no-timing > /dev/null ||
    fail "path --merged --class $jvm_name: exit $?"
"$LEAKRAY" analyze "$work/a.hprof" --watch "$jvm_name" --no-suspects --no-timing \
    > /dev/null 2> "$work/w.err"
grep -q 'no class' "$work/w.err" && fail "--watch $jvm_name: $(cat "$work/w.err")"
# the stable name (`Foo$$Lambda`, as signatures, diff rows and --watch give it) names every
# lambda class of Foo: instances, path --merged and histo --class took only the JVM's name,
# and --watch warned that the dump "holds no instance of it" while watching them
stable_name='com.example.lambdas.LambdaLeaks$$Lambda'
"$LEAKRAY" instances "$work/a.hprof" "$stable_name" --no-timing > "$work/inst2.txt" ||
    fail "instances $stable_name: exit $?"
grep -qF "of $stable_name," "$work/inst2.txt" ||
    fail "instances $stable_name: $(head -1 "$work/inst2.txt")"
"$LEAKRAY" path "$work/a.hprof" --class "$stable_name" --merged --no-timing > /dev/null ||
    fail "path --merged --class $stable_name: exit $?"
"$LEAKRAY" histo "$work/a.hprof" --class "$stable_name" --no-timing > "$work/histo2.txt"
grep -q "$pat" "$work/histo2.txt" || fail "histo --class $stable_name: $(tail -1 "$work/histo2.txt")"
"$LEAKRAY" analyze "$work/a.hprof" --watch "$stable_name" --no-suspects --no-timing \
    > /dev/null 2> "$work/w2.err"
[ ! -s "$work/w2.err" ] || fail "--watch $stable_name: $(cat "$work/w2.err")"
echo "stable signatures: ok"
