#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# dupes_small.sh: copies of arrays below --min-bytes are listed when one content wastes 1 MiB.
# tests/programs/dupes/SmallCopies.java keeps 6,000 zeroed byte[200] (1.3 MB wasted, the shape
# of an OutOfMemoryError's heap: 787,928 of them filled one, 170 MB, while dupes listed two
# groups of 16 kB) and 100 equal int[10] (5.5 kB wasted: not listed). --min-bytes still
# lists every copy of its size and above. A copy held by a local variable alone (no object
# refers to it) names that root as its owner and path: it read "(no referrer)", as garbage.
set -euo pipefail
: "${LEAKRAY:?}" "${LEAKRAY_SRC:?}" "${LEAKRAY_BUILD:?}"
. "$LEAKRAY_SRC/tests/e2e/need_lib.bash"
need_tools javac java python3
work="$LEAKRAY_BUILD/tmp/dupes_small"
rm -rf "$work"
mkdir -p "$work/classes"
javac -d "$work/classes" "$LEAKRAY_SRC/tests/programs/dupes/SmallCopies.java"
java -Xmx64m -cp "$work/classes" SmallCopies "$work/s.hprof"
fail() { echo "FAIL: $*" >&2; exit 1; }
groups() { # ARGS...: the array groups' "type count wasted", one per line
    "$LEAKRAY" dupes "$work/s.hprof" --json --no-timing --top 0 "$@" | python3 -c '
import json, sys
for g in json.load(sys.stdin)["arrays"]["groups"]:
    print("%s %d %d" % (g["type"], g["count"], g["wasted"]))'
}
groups >"$work/default.txt"
grep -qx 'byte\[200\] 6000 1295784' "$work/default.txt" ||
    fail "no group of the 6,000 byte[200]: $(cat "$work/default.txt")"
! grep -q '^int\[10\]' "$work/default.txt" || fail "int[10] wastes too little to be listed"
groups --min-bytes 32 >"$work/min32.txt"
grep -qx 'int\[10\] 100 5544' "$work/min32.txt" ||
    fail "--min-bytes 32: no int[10] group: $(cat "$work/min32.txt")"
"$LEAKRAY" dupes "$work/s.hprof" --no-timing >"$work/text.txt"
head -1 "$work/text.txt" |
    grep -q '^Duplicate primitive arrays (>= 1,024 bytes, or smaller copies wasting 1 MiB): ' ||
    fail "the header does not say which arrays were compared"
"$LEAKRAY" dupes "$work/s.hprof" --json --no-timing | python3 -c '
import json, sys
g = [g for g in json.load(sys.stdin)["arrays"]["groups"] if g["type"] == "long[300]"]
assert len(g) == 1 and g[0]["count"] == 3, g
own = [m for m in g[0]["members"] if m["owner_id"] is None]
assert len(own) == 1 and len(own[0]["path"]) == 1, own
assert own[0]["path"][0]["root"] == "Java frame", own[0]["path"]' ||
    fail "the long[300] a local holds: no group, or no root as its path"
grep -q 'owners: .*(GC root: Java local variable) x1' "$work/text.txt" &&
    ! grep -q '(no referrer)' "$work/text.txt" ||
    fail "the local's copy: $(grep -A3 'long\[300\]' "$work/text.txt")"
# a UTF-16 string's length is in characters (it was its bytes: 16 for 8)
"$LEAKRAY" dupes "$work/s.hprof" --json --no-timing --top 0 | python3 -c '
import json, sys
g = [g for g in json.load(sys.stdin)["strings"]["groups"] if g["value"] == "emoji\U0001F600x"]
assert len(g) == 1 and g[0]["count"] == 3 and g[0]["length"] == 8, g' ||
    fail "the UTF-16 string group: wrong length or missing"
echo "dupes_small: ok"
