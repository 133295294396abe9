#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# obf_mapping.sh: --mapping deobfuscates every verb that prints a class, field or frame name.
# On a dump of tests/programs/obf/a.java (one-letter names) with its R8 mapping (obf_lib.bash):
# histo, top, show, path, threads, diff, clusters and cycles print com.example.shop.* names
# and never the obfuscated class `c`; threads prints each app frame as source, method and line
# through the mapping's line ranges and sourceFile header (Checkout.snapshot(Checkout.kt:203),
# Checkout.main(Checkout.kt:102)); show names fields (items, price); strip refuses --mapping;
# a malformed mapping fails with its file and line.
. "$(dirname "$0")/obf_lib.bash"
obf_init obf_mapping
M=$OBF/shop.map
D=$OBF/o1.hprof
cd "$OBF"

"$LEAKRAY" histo --no-timing --mapping "$M" "$D" >histo.txt
grep -Eq ' 200 +[0-9,]+  com\.example\.shop\.Item$' histo.txt || fail "histo: no 200 Items"
grep -Eq '  c$' histo.txt && fail "histo: obfuscated class c still printed"
"$LEAKRAY" histo --no-timing --json --mapping "$M" "$D" >histo.json
python3 - histo.json <<'PY' || fail "histo --json"
import json, sys
j = json.load(open(sys.argv[1]))
names = {c["name"]: c for c in j["classes"]}
assert names["com.example.shop.Item"]["count"] == 200, names.get("com.example.shop.Item")
assert "c" not in names and "b" not in names, "obfuscated names left"
PY

"$LEAKRAY" top --no-timing --by class --top 50 --mapping "$M" "$D" >top.txt
grep -q 'com\.example\.shop\.Cart' top.txt || fail "top --by class: no Cart"
"$LEAKRAY" top --json --no-timing --top 400 --mapping "$M" "$D" >top.json
cart=$(python3 - top.json <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
ids = [o["id"] for o in j["objects"] if o["class"] == "com.example.shop.Cart"]
assert ids, "top: no Cart object among the 400 largest"
print(ids[0])
PY
) || fail "top --json has no Cart"

"$LEAKRAY" show --no-timing --mapping "$M" "$D" "$cart" >show.txt
grep -q 'com\.example\.shop\.Cart' show.txt || fail "show: class not deobfuscated"
grep -Eq '\bitems\b' show.txt || fail "show: field a of Cart not shown as items"

"$LEAKRAY" path --no-timing --mapping "$M" "$D" "$cart" >path.txt
grep -q 'com\.example\.shop\.Checkout' path.txt || fail "path: root class not deobfuscated"
grep -q 'cart' path.txt || fail "path: static field a of Checkout not shown as cart"

snap=$(( $(obf_line snapshot) - ($(obf_line snapshot) - 3) + 200 ))
"$LEAKRAY" threads --no-timing --mapping "$M" "$D" >threads.txt
grep -q "at com\.example\.shop\.Checkout\.snapshot(Checkout\.kt:$snap)" threads.txt ||
    fail "threads: snapshot frame not read as source (want Checkout.kt:$snap)"
grep -q "at com\.example\.shop\.Checkout\.main(Checkout\.kt:102)" threads.txt ||
    fail "threads: main frame not read as source (want Checkout.kt:102)"
grep -q 'local com\.example\.shop\.Cart ' threads.txt || fail "threads: local not deobfuscated"
grep -q 'at a\.' threads.txt && fail "threads: obfuscated frames left"
"$LEAKRAY" threads --json --no-timing --mapping "$M" "$D" >threads.json
python3 - threads.json "$snap" <<'PY' || fail "threads --json"
import json, sys
j = json.load(open(sys.argv[1]))
fr = [f for t in j["threads"] for f in t["frames"] if f["method"] == "snapshot"]
assert fr and fr[0]["line"] == int(sys.argv[2]), fr
PY

"$LEAKRAY" diff --no-timing --mapping "$M" "$OBF/o1.hprof" "$OBF/o2.hprof" >diff.txt
grep -Eq '\+1,000 .*com\.example\.shop\.Item$' diff.txt || fail "diff: Item growth not named"
"$LEAKRAY" cycles --no-timing --mapping "$M" "$D" >/dev/null || fail "cycles rejects --mapping"
"$LEAKRAY" clusters --no-timing --mapping "$M" "$D" >/dev/null || fail "clusters rejects --mapping"

rc=0
"$LEAKRAY" strip --mapping "$M" -o x.hprof "$D" 2>err.txt || rc=$?
[ "$rc" = 2 ] || fail "strip --mapping exits $rc, want 2"

printf 'com.example.Broken -> a\n' >bad.map
rc=0
"$LEAKRAY" histo --mapping bad.map "$D" 2>err.txt >/dev/null || rc=$?
[ "$rc" = 3 ] || fail "malformed mapping exits $rc, want 3"
grep -q 'bad\.map:1:' err.txt || fail "malformed mapping error does not name file:line"
echo "ok: --mapping on every verb; threads frames read as source"
