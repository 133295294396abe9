#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# ruby_heap.sh: Ruby heap dumps end to end. Runs tests/programs/ruby/leaks.rb (a growing
# constant hash of Sessions, a class-variable cache of Items, closures holding Payloads kept
# by a global callback list) under Debian's ruby, which writes an ObjectSpace.dump_all dump and
# its own ObjectSpace.each_object counts; then checks leakray against Ruby's counts (histo),
# the leaks' retained sizes (top), the reference chains (path), leak traces (analyze --watch),
# gzip input, a dump with its empty slots (full: true) or a byte-order mark,
# and bad input (a cut line, a broken line: exit 3 with the offset). A class's
# "superclass" makes its instances instances of the superclass too ("Shape+": each_object of
# Shape and its subclasses, not a histo row).
set -euo pipefail
. "$LEAKRAY_SRC/tests/e2e/ruby_lib.bash"
ruby_start ruby_heap leaks.rb

# 1. instance counts equal Ruby's own
"$LEAKRAY" histo --json --no-timing "$D" >"$W/histo.json"
check "$W/histo.json" 'all({c["name"]: c["count"] for c in d["classes"]}.get(k) == v
    for k, v in e.items() if not k.endswith("+"))' "histo counts differ from ObjectSpace.each_object"
"$LEAKRAY" info --json --no-timing "$D" >"$W/info.json"
check "$W/info.json" 'd["format"] == "ruby" and d["roots"]["count"] > 0' "info"

# 2. the constant hash retains its 300 Sessions and their strings
"$LEAKRAY" top --json --no-timing --top 20 "$D" >"$W/top.json"
sess=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1]));
print([c for c in d["classes"] if c["name"] == "Session"][0]["shallow"])' "$W/histo.json")
check "$W/top.json" "any(o['class'] == 'Hash' and o['retained'] >= $sess + 300 * 512
    for o in d['objects'])" "no Hash retains the Sessions"

# 3. a Session's path goes through the Object class's constants and the Hash
id=$(python3 -c 'import json,sys
for l in open(sys.argv[1]):
    o = json.loads(l)
    if o.get("type") == "CLASS" and o.get("name") == "Session": cls = o["address"]
for l in open(sys.argv[1]):
    o = json.loads(l)
    if o.get("type") == "OBJECT" and o.get("class") == cls: print(o["address"]); break' "$D")
"$LEAKRAY" path --json --no-timing "$D" "$id" >"$W/path.json"
check "$W/path.json" '[s["class"] for s in d["path"]][-2:] == ["Hash", "Session"] and
    any(s["class"] == "class Object" for s in d["path"])' "path to a Session"

# 4. every Session is a leak trace under --watch
"$LEAKRAY" analyze --json --no-timing --watch Session "$D" >"$W/analyze.json" || [ $? = 1 ]
check "$W/analyze.json" 'd["leaking_objects"] == e["Session"] and len(d["traces"]) == e["Session"]
    and d["traces"][0]["elements"][-1]["class"] == "Session"' "analyze --watch Session"

# 4b. subclasses are instances of their superclass: the four shapes (Ruby's own count of
# Shape and its subclasses), through Square's include class too
"$LEAKRAY" analyze --json --no-timing --watch Shape "$D" >"$W/shapes.json" || [ $? = 1 ]
check "$W/shapes.json" 'd["leaking_objects"] == e["Shape+"] == 4' "analyze --watch Shape"
"$LEAKRAY" sql "$D" "SELECT name, super FROM classes WHERE name IN ('Circle', 'Square')
    ORDER BY name" >"$W/supers.tsv"
[ "$(tail -n +2 "$W/supers.tsv" | tr '\t\n' ' ')" = "Circle Shape Square Shape " ] ||
    fail "sql classes.super: $(cat "$W/supers.tsv")"

# 5. gzip input
gzip -c "$D" >"$W/heap.json.gz"
"$LEAKRAY" histo --json --no-timing "$W/heap.json.gz" >"$W/histo-gz.json"
python3 -c 'import json,sys; a=json.load(open(sys.argv[1])); b=json.load(open(sys.argv[2]));
assert a["classes"] == b["classes"]' "$W/histo.json" "$W/histo-gz.json" || fail "gzip input"

# 5b. an object keeps its class, and so what the class holds: the anonymous class's 1 MB
# string and the singleton class's 500 kB one have paths (through `class`), and the objects
# the globals keep retain them (dump_all gives an object's class apart from its references)
for size in 1000000 500000; do
    sid=$(python3 -c 'import json,sys
for l in open(sys.argv[1]):
    o = json.loads(l)
    if o.get("type") == "STRING" and o.get("bytesize") == int(sys.argv[2]):
        print(o["address"]); break' "$D" "$size")
    [ -n "$sid" ] || fail "no $size-byte string in the dump"
    "$LEAKRAY" path --json --no-timing "$D" "$sid" >"$W/cls-path.json" ||
        fail "the $size-byte string a class holds has no path"
    check "$W/cls-path.json" 'any(s.get("reference") == "internal" and s.get("name") == "class"
        for s in d["path"])' "the $size-byte string's path does not go through a class"
done
"$LEAKRAY" top --json --no-timing --top 40 "$D" >"$W/top40.json"
check "$W/top40.json" "any(o['class'].startswith('#<Class:0x') and o['retained'] >= 1000000
    for o in d['objects'])" "the anonymous class's instance does not retain its class's 1 MB"

# 5c. SQL's roots name them as info does in the title column, in Ruby's words
"$LEAKRAY" sql "$D" "SELECT DISTINCT title FROM roots WHERE kind = 'JNI global'" >"$W/roots.tsv"
grep -qx 'Global variable (global_tbl, global_list)' "$W/roots.tsv" ||
    fail "sql roots.title: $(cat "$W/roots.tsv")"

# 5d. dump_all(full: true) lists the heap's empty slots ("NONE") too: they are no objects
"$LEAKRAY" histo --json --no-timing "$D.full" >"$W/histo-full.json"
check "$W/histo-full.json" 'all({c["name"]: c["count"] for c in d["classes"]}.get(k) == v
    for k, v in e.items() if not k.endswith("+"))' "full: true: histo counts differ"
"$LEAKRAY" info --json --no-timing "$D.full" >"$W/info-full.json"
objs=$(grep -c -v '"type":"ROOT"\|"type":"NONE"' "$D.full")
[ "$(grep -c '"type":"NONE"' "$D.full")" -gt 0 ] || fail "full: true wrote no empty slot"
check "$W/info-full.json" "d['objects']['count'] == $objs" "full: true: free slots counted"

# 5e. a UTF-8 byte-order mark before the first line changes nothing
{ printf '\xef\xbb\xbf'; cat "$D"; } >"$W/bom.json"
"$LEAKRAY" histo --json --no-timing "$W/bom.json" >"$W/histo-bom.json"
python3 -c 'import json,sys; a=json.load(open(sys.argv[1])); b=json.load(open(sys.argv[2]));
assert a["classes"] == b["classes"]' "$W/histo.json" "$W/histo-bom.json" || fail "BOM"

# 5f. show of a class lists what it holds (its class variables, constants and instance
# variables are references: Item's @@items array; show listed nothing for a class)
item=$(python3 -c 'import json,sys
for l in open(sys.argv[1]):
    o = json.loads(l)
    if o.get("type") == "CLASS" and o.get("name") == "Item": print(o["address"]); break' "$D")
"$LEAKRAY" show --json --no-timing "$D" "$item" >"$W/show-item.json"
check "$W/show-item.json" 'any(x["class"] == "Array" for x in d["object"].get("edges", []))' \
    "show of class Item: no edge to its @@items array"

# 5g. a dump cut at a line's end (a process killed while it wrote) is said to be cut short:
# GC roots whose objects have no line (it read as a valid, smaller heap); a gate refuses it
python3 - "$D" "$W/cutline.json" <<'PY'
import sys
d = open(sys.argv[1], "rb").read()
open(sys.argv[2], "wb").write(d[:d.index(b"\n", len(d) // 2) + 1])
PY
"$LEAKRAY" info --json --no-timing "$W/cutline.json" >"$W/info-cut.json"
check "$W/info-cut.json" '"truncated" in [x["name"] for x in d["diagnostics"]]' \
    "a dump cut at a line's end is not said to be cut short"
rc=0
"$LEAKRAY" analyze --no-timing --watch String --fail-on-leak "$W/cutline.json" >/dev/null \
    2>&1 || rc=$?
[ "$rc" = 3 ] || fail "analyze --fail-on-leak on a cut dump: exit $rc, not 3"
check "$W/info.json" '"truncated" not in [x["name"] for x in d["diagnostics"]]' \
    "the whole dump said to be cut short"

# 6. bad input: exit 3 with the offset
# Cut inside a line.
python3 - "$D" "$W/cut.json" <<'PY'
import sys
d = open(sys.argv[1], "rb").read()
nl = d.index(b"\n", len(d) // 2)
open(sys.argv[2], "wb").write(d[:nl - 3])
PY
printf '{"address":"0x10", "type":"OBJECT", "references":["0x20",}\n' >"$W/broken.json"
for f in cut.json broken.json; do
    rc=0
    "$LEAKRAY" info "$W/$f" >/dev/null 2>"$W/err" || rc=$?
    [ "$rc" = 3 ] || fail "$f exited $rc, not 3"
    grep -q "$f: offset 0x" "$W/err" || fail "$f: no offset in: $(cat "$W/err")"
done
echo "ruby_heap: ok"
