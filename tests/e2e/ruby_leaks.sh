#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# ruby_leaks.sh: three Ruby dumps where freed heap slots go to new objects
# (tests/programs/ruby/slots.rb). `leaks` matched objects by address alone: a Leaked made
# where a baseline Temp lay was "old" (164 of 200 reported) and the dump's own output File,
# in a slot a String held before, a leak. An address now names the same object only with the
# same class, as on HotSpot (one of the same class there still reads as the old object: the
# counts are a lower bound, and leaks says so). The VM's root (the ractor, its threads) is a root like the
# others: a thread-local of the main thread was reached through a worker thread a global held
# (4 references for 3). rules/ruby.rules keeps inline caches, strings and hidden objects
# (the finalizer table's arrays a WeakRef adds) out of `leaks`.
set -euo pipefail
. "$LEAKRAY_SRC/tests/e2e/ruby_lib.bash"
ruby_start ruby_leaks slots.rb
S=$W/heap.json
"$LEAKRAY" leaks --baseline "$S-base.json" --target "$S-target.json" --final "$S-final.json" \
    --json --no-timing --top 0 >"$W/leaks.json" || [ $? = 1 ]
check "$W/leaks.json" '[c["count"] for c in d["clusters"] if c["title"] == "Leaked"] ==
    [e["leaked"]] == [200]' "leaks: not the 200 Leaked objects"
# one of a class made in a slot another of it left still reads as the old one: said, as
# counts that are a lower bound (in --json's warnings)
check "$W/leaks.json" 'any("too low or too high" in w for w in d["warnings"])' \
    "leaks: no word that Ruby counts may be off"
check "$W/leaks.json" 'not [c for c in d["clusters"] if c["title"] in
    ("File", "(IMEMO)", "String", "Temp", "(ARRAY)")]' \
    "leaks: a reused slot, a cache, a string or the finalizer table reported"
"$LEAKRAY" path --json --no-timing "$S-final.json" "$(python3 -c 'import json,sys
print(json.load(open(sys.argv[1]))["item"])' "$E")" >"$W/path.json"
check "$W/path.json" '[s["id"] for s in d["path"]][-3:-2] == [e["main"]] and len(d["path"]) == 4
    and e["worker"] not in [s["id"] for s in d["path"]]' \
    "path: the main thread's thread-local not through the VM's root"
# diff compares per class, as on HotSpot: matched by address, a replaced cache read as a
# fraction of its objects new and deleted (the rest took freed slots of their own class)
"$LEAKRAY" diff --json --no-timing "$S-base.json" "$S-target.json" >"$W/diff.json"
check "$W/diff.json" 'd["match"] == "class" and [c["count_delta"] for c in d["classes"]
    if c["name"] == "Leaked"] == [200]' "diff: Ruby dumps not compared per class"
# what was filtered, by reason: no speech of V8's backing stores on a Ruby heap
check "$W/leaks.json" 'd["filtered"] == sum(d["filtered_by"][k] for k in ("unreachable", "internal", "rules"))' \
    "leaks: filtered is not the sum of its reasons"
"$LEAKRAY" leaks --baseline "$S-base.json" --target "$S-target.json" --final "$S-final.json" \
    --no-timing --top 0 >"$W/leaks.txt" || [ $? = 1 ]
! head -1 "$W/leaks.txt" | grep -q "backing stores" || fail "leaks: $(head -1 "$W/leaks.txt")"
echo "ruby_leaks: ok"
