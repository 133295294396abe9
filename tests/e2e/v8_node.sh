#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# v8_node.sh: real Node.js heap snapshots written at test time by
# tests/programs/node/v8_leak.js (1,000 objects per leak site) load through the CLI; the
# histogram counts exactly the planted objects (LeakedRecord, CacheEntry, Subscriber,
# ClosurePayload, and TransientThing only in the target snapshot), `show` resolves a V8 id,
# `path` reaches a leaked record from the root through `leakedRecords`, and the same snapshot
# rewritten into the ArkTS layout (scripts/v8-to-arkts.js: 8 node fields, Ark type lists)
# loads with the same objects and shallow total, native_size included. Needs node.
set -euo pipefail
: "${LEAKRAY:?}" "${LEAKRAY_SRC:?}" "${LEAKRAY_BUILD:?}"
command -v node >/dev/null || { echo "SKIP: node not installed"; exit 77; }
work="$LEAKRAY_BUILD/tmp/v8_node"
rm -rf "$work"
mkdir -p "$work"
fail() { echo "FAIL: $*" >&2; exit 1; }

node --expose-gc "$LEAKRAY_SRC/tests/programs/node/v8_leak.js" "$work" 0.02 >/dev/null
final="$work/s3-final.heapsnapshot"
target="$work/s2-target.heapsnapshot"

count() { # count FILE CLASS -> instances column of the histogram row for CLASS
    "$LEAKRAY" histo "$1" --no-timing | awk -v c="$2" '$NF == c && NF == 7 { gsub(",", "", $2); print $2 }'
}
for c in LeakedRecord CacheEntry Subscriber ClosurePayload; do
    [ "$(count "$final" "$c")" = 1000 ] || fail "$c count in final: $(count "$final" "$c")"
done
[ "$(count "$target" TransientThing)" -ge 1000 ] || fail "TransientThing in target"
[ "$(count "$final" TransientThing)" -lt 1000 ] || fail "TransientThing survived"
[ "$(count "$final" WeakValue)" = 62 ] || fail "WeakValue count"

"$LEAKRAY" info "$final" --no-timing > "$work/info.txt"
grep -q '^format: *v8, V8 heap snapshot, 7 node fields' "$work/info.txt" || fail "info format"

# A leaked record's id from the strings of the snapshot: the first LeakedRecord node.
id=$(node -e '
const j = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
const f = j.snapshot.meta.node_fields.length, s = j.strings.indexOf("LeakedRecord");
for (let i = 0; i < j.nodes.length; i += f)
  if (j.nodes[i + 1] === s && j.snapshot.meta.node_types[0][j.nodes[i]] === "object") {
    console.log(j.nodes[i + 2]); break; }' "$final")
[ -n "$id" ] || fail "no LeakedRecord id"
"$LEAKRAY" show "$final" "@$id" --no-timing > "$work/show.txt"
grep -q "^@$id LeakedRecord" "$work/show.txt" || fail "show @$id: $(head -1 "$work/show.txt")"
"$LEAKRAY" path "$final" "@$id" --no-timing > "$work/path.txt"
grep -q 'leakedRecords' "$work/path.txt" || fail "path does not go through leakedRecords"

# ArkTS layout of the same heap.
ark="$work/final.ark.heapsnapshot"
node "$LEAKRAY_SRC/scripts/v8-to-arkts.js" "$final" "$ark" --native 4096
"$LEAKRAY" info "$ark" --no-timing > "$work/ark-info.txt"
grep -q '^format: *v8, ArkTS heap snapshot, 8 node fields' "$work/ark-info.txt" || fail "ark format"
for key in 'objects:' 'shallow total:' 'edges:'; do
    a=$(grep "^$key" "$work/info.txt"); b=$(grep "^$key" "$work/ark-info.txt")
    [ "$a" = "$b" ] || fail "ArkTS layout differs: '$a' vs '$b'"
done
for c in LeakedRecord CacheEntry Subscriber ClosurePayload; do
    [ "$(count "$ark" "$c")" = 1000 ] || fail "$c count in ArkTS layout"
done
echo "ok"
