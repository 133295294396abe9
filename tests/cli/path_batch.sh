#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# path_batch.sh: `path FILE ID ID...` and `path FILE --ids FILE` give, for each id in the
# order asked, exactly what `path FILE ID` alone prints (text: blank line between paths;
# JSON: the single form's keys as one element of "paths"), also when one asked object lies
# on another's path (every object of a long path is asked for at once) and for unreachable
# objects; an unknown id or a bad --ids line stops the run before any output (exit 2).
set -euo pipefail
. "$(dirname "$0")/lib/common.bash"
cli_init path_batch
cli_fixtures

# same_as_single DUMP IDFILE: the batch's text and JSON against one run per id
same_as_single() {
    local dump=$1 ids=$2 id first=1
    run path "$dump" --ids "$ids" --no-timing
    expect_rc 0
    cp "$T/out" "$T/batch.txt"
    : > "$T/single.txt"
    : > "$T/single.jsonl"
    while read -r id; do
        [ "$first" = 1 ] || echo >> "$T/single.txt"
        first=0
        "$LEAKRAY" path "$dump" "$id" --no-timing >> "$T/single.txt"
        "$LEAKRAY" path "$dump" "$id" --no-timing --json >> "$T/single.jsonl"
    done < "$ids"
    diff -u "$T/single.txt" "$T/batch.txt" > "$T/diff" ||
        { head -40 "$T/diff" >&2; fail "$dump: batch text differs from single runs"; }
    run path "$dump" --ids "$ids" --no-timing --json
    expect_rc 0
    python3 - "$T/out" "$T/single.jsonl" <<'PY' || fail "$dump: batch JSON differs"
import json, sys
batch = json.load(open(sys.argv[1]))
dec, text, singles = json.JSONDecoder(), open(sys.argv[2]).read(), []
pos = 0
while text[pos:].strip():
    pos += len(text[pos:]) - len(text[pos:].lstrip())
    d, pos = dec.raw_decode(text, pos)
    d.pop("schema_version")
    singles.append(d)
assert batch["schema_version"] == 2 and batch["paths"] == singles, (len(singles),)
PY
}

# the longest path among 300 objects, every object on it asked for at once (each but the
# last lies on the next one's path: searched as leaves they would cut it), then some
# unreachable objects
for f in sun_jdk6_18_x64.hprof test-dump.hprof; do
    dump=$FIX/$f
    "$LEAKRAY" sql "$dump" "SELECT id FROM objects ORDER BY id LIMIT 300" | tail -n +2 \
        > "$T/all.ids"
    run path "$dump" --ids "$T/all.ids" --json --no-timing
    expect_rc 0
    python3 - "$T/out" > "$T/$f.ids" <<'PY' || fail "$f: no path of 3 objects or more"
import json, sys
ps = json.load(open(sys.argv[1]))["paths"]
deep = max((p for p in ps if p["reachable"]), key=lambda p: len(p["path"]))
assert len(deep["path"]) >= 3, len(deep["path"])
for h in deep["path"]:
    print(h["id"])
for p in [p for p in ps if not p["reachable"]][:3]:
    print(p["object"]["id"])
PY
    same_as_single "$dump" "$T/$f.ids"
done

# a V8 snapshot: DevTools' paths, one pass for all
v8=$FIX/../v8/heap-1.heapsnapshot
if [ -f "$v8" ]; then
    "$LEAKRAY" sql "$v8" "SELECT id FROM objects ORDER BY id LIMIT 12" | tail -n +2 > "$T/v8.ids"
    same_as_single "$v8" "$T/v8.ids"
fi

# several ids after FILE = the same ids in a file; '#' lines, blanks and second words skipped
dump=$FIX/sun_jdk6_18_x64.hprof
mapfile -t some < <(head -4 "$T/sun_jdk6_18_x64.hprof.ids")
run path "$dump" "${some[@]}" --no-timing
expect_rc 0
cp "$T/out" "$T/args.txt"
{ echo "# ids"; echo; for i in "${some[@]}"; do echo "$i  second-column"; done; } > "$T/c.ids"
run path "$dump" --ids - --no-timing < "$T/c.ids"
expect_rc 0
cmp -s "$T/out" "$T/args.txt" || fail "ids on stdin differ from ids after FILE"

# 20 ids after FILE (up to 63 fit) = the same ids with --ids
mapfile -t many < <(head -20 "$T/all.ids")
run path "$FIX/test-dump.hprof" "${many[@]}" --no-timing
expect_rc 0
cp "$T/out" "$T/many.txt"
printf '%s\n' "${many[@]}" > "$T/many.ids"
run path "$FIX/test-dump.hprof" --ids "$T/many.ids" --no-timing
expect_rc 0
cmp -s "$T/out" "$T/many.txt" || fail "20 ids after FILE differ from the same ids in a file"

# errors: before any search, nothing on stdout
run path "$dump" "${some[0]}" 0x7fffffff01 --json
expect_rc 2
expect_out '"code": "not_found"'
grep -q '"paths"' "$T/out" && fail "an unknown id still printed paths"
printf '%s\nzz9\n' "${some[0]}" > "$T/bad.ids"
run path "$dump" --ids "$T/bad.ids"
expect_rc 2
expect_err "bad\.ids:2: 'zz9' is not an object id"
[ ! -s "$T/out" ] || fail "a bad --ids line still printed"

# An object only the GC's pending list reaches (JDK 6: a SoftReference's Reference.next, its
# queue not ENQUEUED): `show` and `top` call it unreachable; its path says it is low priority.
run path "$FIX/sun_jdk6_18_x32.hprof" 0x2419cb50 --json --no-timing
expect_rc 0
[ "$(json_get 'd["low_priority"]')" = true ] || fail "a path through the pending list is not low priority"
echo "path_batch: ok"
