#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# ruby_sites.sh: allocation sites of a Ruby heap dump. Runs tests/programs/ruby/sites.rb under
# Debian's ruby with ObjectSpace.trace_object_allocations on: it dumps its heap and writes what
# Ruby itself reports of four objects (a cached Record, its label String, the cache Array, a
# 200 kB buffer): address and allocation_sourcefile / _sourceline / _method_id. `show` must
# print each object's site as Ruby reports it (text and JSON), and `top` must carry the site
# of its rows: the buffer among the biggest objects, the cache among the Arrays. A dump
# written without tracing has no site anywhere.
set -euo pipefail
. "$LEAKRAY_SRC/tests/e2e/ruby_lib.bash"
ruby_start ruby_sites sites.rb
want() { python3 -c 'import json,sys; w=json.load(open(sys.argv[1]))[sys.argv[2]]
print(w[sys.argv[3]] if sys.argv[3] != "text" else
      "%s:%d%s" % (w["file"], w["line"], " in " + w["method"] if w["method"] else ""))' \
    "$E" "$1" "$2"; }

for o in record label records buffer; do
    addr=$(want "$o" address)
    text=$(want "$o" text)
    "$LEAKRAY" show --no-timing "$D" "$addr" >"$W/show.txt"
    grep -qxF "allocated at:  $text" "$W/show.txt" ||
        fail "show $o: want 'allocated at:  $text', got: $(grep allocated "$W/show.txt" || true)"
    "$LEAKRAY" show --json --no-timing "$D" "$addr" >"$W/show.json"
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))["object"]["allocation_site"]
w=json.load(open(sys.argv[2]))[sys.argv[3]]
assert (d["file"], d["line"], d["method"]) == (w["file"], w["line"], w["method"]), (d, w)' \
        "$W/show.json" "$E" "$o" || fail "show --json $o"
done
# Ruby names the methods: the Record came from `new` in Cache.store, the buffer from `*`.
[ "$(want record method)" = new ] && [ "$(want buffer method)" = '*' ] ||
    fail "ruby reports other methods: $(cat "$E")"

# top: the buffer is among the 10 biggest objects, with its site
buf=$(want buffer address)
"$LEAKRAY" top --no-timing --top 10 "$D" >"$W/top.txt"
grep -qE "^ *[0-9]+: $buf .*String  at $(want buffer text | sed 's/[*.]/\\&/g')\$" "$W/top.txt" ||
    fail "top: no site on the buffer's row: $(cat "$W/top.txt")"
"$LEAKRAY" top --json --no-timing --top 10 "$D" >"$W/top.json"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))
row=[o for o in d["objects"] if o["id"] == sys.argv[2]][0]
assert row["allocated_at"] == sys.argv[3], row
assert all("allocated_at" not in o for o in d["objects"] if o["class"].startswith("class ")), d' \
    "$W/top.json" "$buf" "$(want buffer text)" || fail "top --json allocated_at"
# the cache array is the biggest Array, allocated where the class body ran
"$LEAKRAY" top --json --no-timing --top 1 --class Array "$D" >"$W/arr.json"
python3 -c 'import json,sys; o=json.load(open(sys.argv[1]))["objects"][0]
assert (o["id"], o["allocated_at"]) == (sys.argv[2], sys.argv[3]), o' "$W/arr.json" \
    "$(want records address)" "$(want records text)" || fail "top --class Array: $(cat "$W/arr.json")"

# without tracing: no site, in show or top
ruby -robjspace -e 'X = "q" * 1000; GC.start
File.open(ARGV[0], "w") { |f| ObjectSpace.dump_all(output: f) }' "$W/plain.json"
"$LEAKRAY" top --json --no-timing --top 50 "$W/plain.json" >"$W/plain-top.json"
! grep -q allocated_at "$W/plain-top.json" || fail "a site without tracing"
echo "ruby_sites: ok"
