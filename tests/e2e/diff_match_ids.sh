#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# diff_match_ids.sh: `diff --match-ids` on two HotSpot dumps of one process. A collection
# between them gives addresses (ids) to other objects: an id naming an array of another
# length in B was one object whose bytes did not count, so the (total) row's size delta was
# not B's total less A's (+115,600 for +115,576). The delta is now the totals' difference, and
# ids naming another class or size are said (a warning: the per-class default is the
# comparison). tests/programs/diff/Slides.java writes the two dumps (a sliding collector
# between them).
set -euo pipefail
: "${LEAKRAY:?}" "${LEAKRAY_SRC:?}" "${LEAKRAY_BUILD:?}"
. "$LEAKRAY_SRC/tests/e2e/need_lib.bash"
need_tools javac java python3
work="$LEAKRAY_BUILD/tmp/diff_match_ids"
rm -rf "$work"
mkdir -p "$work/classes"
fail() { echo "FAIL: $*" >&2; exit 1; }
javac -d "$work/classes" "$LEAKRAY_SRC/tests/programs/diff/Slides.java"
java -Xmx64m -XX:+UseSerialGC -cp "$work/classes" Slides "$work/a.hprof" "$work/b.hprof"
total() { "$LEAKRAY" info "$1" --json --no-timing | python3 -c 'import json, sys
print(json.load(sys.stdin)["shallow_total"])'; }
ta=$(total "$work/a.hprof")
tb=$(total "$work/b.hprof")
"$LEAKRAY" diff --match-ids "$work/a.hprof" "$work/b.hprof" --json --no-timing \
    >"$work/d.json" 2>"$work/d.err"
python3 - "$work/d.json" "$ta" "$tb" <<'PY' || fail "the total's size delta is not B's total less A's"
import json, sys
t = json.load(open(sys.argv[1]))["total"]
want = int(sys.argv[3]) - int(sys.argv[2])
assert t["size_delta"] == want, (t["size_delta"], want)
PY
grep -q 'ids name an object of another class or size in the second' "$work/d.err" ||
    fail "no word of the ids the collector reused: $(cat "$work/d.err")"
echo "diff_match_ids: ok"
