#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# ruby_strings.sh: Ruby strings end to end. Runs tests/programs/ruby/strings.rb (10,000 copies
# of one 200-byte string built at run time, a frozen literal named 50 times, 100 shared tails
# of one string) under Debian's ruby, which writes an ObjectSpace.dump_all dump and Ruby's own
# figures; then checks dupes' group for the copies (count, bytes, wasted) against Ruby's, that
# the fstring and the shared strings form no group, that show prints a string's value, and
# that info counts the dump's STRING records; and that singleton classes (Foo's, for a class
# method, and one object's, from `class << obj`) have the names Ruby's inspect gives; and
# that a dump holding a 70 MB string opens.
set -euo pipefail
. "$LEAKRAY_SRC/tests/e2e/ruby_lib.bash"
ruby_start ruby_strings strings.rb

# 1. the 10,000 copies are one group: Ruby's count, memsize and (count - 1) x memsize wasted
"$LEAKRAY" dupes --json --no-timing "$D" >"$W/dupes.json"
check "$W/dupes.json" '[(g["count"], g["bytes"], g["wasted"]) for g in d["strings"]["groups"]
    if g["value"] == e["value"]] == [(e["count"], e["bytes"], e["wasted"])]' \
    "dupes: the copies' group differs from Ruby's figures"
# 2. the frozen literal is one fstring (Ruby: one object), so no group; shared strings have no
# bytes of their own, so none of the 100 equal tails groups
check "$W/dupes.json" 'e["frozen_distinct"] == 1 and e["shared_tails"] == 100 and
    not [g for g in d["strings"]["groups"] if g["value"] == "a frozen literal"
         and g["count"] != e["frozen_objects"]] and
    not [g for g in d["strings"]["groups"] if g["value"] == "z" * 3000]' \
    "dupes: an fstring or shared strings counted as copies"
"$LEAKRAY" dupes --no-timing "$D" >"$W/dupes.txt"
grep -q "x10,000 .* wasted: \"hellohello" "$W/dupes.txt" || fail "dupes text: no copies' group"

# 3. show prints a copy's value and length
id=$(python3 -c 'import json,sys
v = json.load(open(sys.argv[2]))["value"]
for l in open(sys.argv[1]):
    o = json.loads(l)
    if o.get("type") == "STRING" and o.get("value") == v: print(o["address"]); break' "$D" \
    "$E")
"$LEAKRAY" show --no-timing "$D" "$id" >"$W/show.txt"
grep -q '^value: *"hellohello.*" (200 bytes' "$W/show.txt" || fail "show: no value"

# 4. info counts every STRING record of the dump as a string
"$LEAKRAY" info --json --no-timing "$D" >"$W/info.json"
n=$(grep -c '"type":"STRING"' "$D")
check "$W/info.json" "d['strings'] == $n" "info: strings is not the dump's $n"

# 5. singleton classes have the names Ruby's inspect gives them: a class's and an object's;
# an object with one counts as an instance of its class, as obj.class and each_object say
# (histo counted each such Foo under its own singleton: 20 Foos of 51)
"$LEAKRAY" sql --json --no-timing "$D" "select name from classes" >"$W/classes.json"
check "$W/classes.json" '{e["foo_singleton"], e["obj_singleton"]} <=
    {r[0] for r in d["results"][0]["rows"]} and e["foo_singleton"] == "#<Class:Foo>"' \
    "classes: singleton classes not named as Ruby does"
"$LEAKRAY" histo --json --no-timing "$D" >"$W/histo.json"
check "$W/histo.json" '[c["count"] for c in d["classes"] if c["name"] == "Foo"] == [e["foos"]]
    and e["foos"] == 51 and not [c for c in d["classes"] if c["name"].startswith("#<Class:#<Foo")]' \
    "histo: objects with a singleton class not counted in their class"

# 6. a value its "bytesize" contradicts costs that value only: the load goes on, info counts
# it (string_value_mismatch) and the copies' group loses that one member; a bytesize that is
# no count is exit 3 at its offset
sed "0,/\"bytesize\":200, \"value\":\"hello/s//\"bytesize\":5000, \"value\":\"hello/" "$D" \
    >"$W/lie.json"
"$LEAKRAY" info --json --no-timing "$W/lie.json" >"$W/lie-info.json"
check "$W/lie-info.json" '[(x["name"], x["count"]) for x in d["diagnostics"]] ==
    [("string_value_mismatch", 1)]' "info: a contradicted value not counted once"
"$LEAKRAY" dupes --json --no-timing "$W/lie.json" >"$W/lie-dupes.json"
check "$W/lie-dupes.json" '[g["count"] for g in d["strings"]["groups"]
    if g["value"] == e["value"]] == [e["count"] - 1]' \
    "dupes: a value its bytesize contradicts still counted as a copy"
for lie in -200 123456789012345678901234567890; do
    sed "0,/\"bytesize\":200, \"value\":\"hello/s//\"bytesize\":$lie, \"value\":\"hello/" "$D" \
        >"$W/lie.json"
    rc=0
    "$LEAKRAY" dupes --no-timing "$W/lie.json" >"$W/lie.out" 2>&1 || rc=$?
    [ "$rc" = 3 ] && grep -q 'offset 0x[0-9a-f]*: .*"bytesize"' "$W/lie.out" ||
        fail "bytesize $lie: exit $rc, $(head -c 300 "$W/lie.out")"
done
# a string longer than a JSON string the scanner decodes (70 MB; 64 MiB is the cap): the dump
# opens (exit 5 before), the string is there with its size, its value is not kept
ruby -robjspace -e '$big = "a" * 70_000_000; GC.start
File.open(ARGV[0], "w") { |f| ObjectSpace.dump_all(output: f) }' "$W/huge.json"
"$LEAKRAY" top --json --no-timing "$W/huge.json" >"$W/huge-top.json" ||
    fail "a 70 MB string: the dump does not open"
check "$W/huge-top.json" 'd["objects"][0]["class"] == "String" and
    d["objects"][0]["shallow"] >= 70000000' "a 70 MB string: not the biggest object"
rm -f "$W/huge.json"
echo "ruby_strings: ok"
