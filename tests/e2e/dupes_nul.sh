#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# dupes_nul.sh: duplicated strings are shown as the heap holds them. tests/programs/dupes/
# NulStrings.java keeps two values that differ only after a U+0000 and a long value. `dupes`
# prints each whole, the NUL escaped (\x00 in text, \u0000 in JSON; they read "rec" both,
# as two groups of one value); a value longer than the JSON carries is cut on a character
# and says so (value_bytes, value_truncated), in `dupes --json` and in the report's model.
set -euo pipefail
: "${LEAKRAY:?}" "${LEAKRAY_SRC:?}" "${LEAKRAY_BUILD:?}"
. "$LEAKRAY_SRC/tests/e2e/need_lib.bash"
need_tools javac java python3
work="$LEAKRAY_BUILD/tmp/dupes_nul"
rm -rf "$work"
mkdir -p "$work/classes"
javac -d "$work/classes" "$LEAKRAY_SRC/tests/programs/dupes/NulStrings.java"
java -Xmx64m -cp "$work/classes" NulStrings "$work/n.hprof"
fail() { echo "FAIL: $*" >&2; exit 1; }

"$LEAKRAY" dupes "$work/n.hprof" --no-timing --top 0 >"$work/d.txt"
grep -q '^  #[0-9]* x6 [0-9,]* wasted: "rec\\x00first"$' "$work/d.txt" ||
    fail "text: no \"rec\\x00first\" group"
grep -q '^  #[0-9]* x6 [0-9,]* wasted: "rec\\x00second-one"$' "$work/d.txt" ||
    fail "text: no \"rec\\x00second-one\" group"
"$LEAKRAY" dupes "$work/n.hprof" --json --no-timing --top 0 >"$work/d.json"
"$LEAKRAY" report "$work/n.hprof" --no-timing --format json -o "$work/m.json" >/dev/null
python3 - "$work/d.json" "$work/m.json" <<'PY' || fail "JSON string values are not the heap's"
import json, sys
d = json.load(open(sys.argv[1]))["strings"]["groups"]
m = json.load(open(sys.argv[2]))["duplicates"]["strings"]
vals = {g["value"]: g for g in d}
assert "rec\x00first" in vals and vals["rec\x00first"]["length"] == 9, sorted(vals)[:5]
assert "rec\x00second-one" in vals and vals["rec\x00second-one"]["count"] == 6
long_ = [g for g in d if g["length"] == 1500]
assert len(long_) == 1, [g["length"] for g in d][:10]
g = long_[0]
whole = len(("".join("\u00e9" if i % 100 == 99 else chr(97 + i % 26) for i in range(1500))).encode())
assert g.get("value_truncated") is True and g["value_bytes"] == whole, g.keys()
assert len(g["value"].encode()) <= 1023 and g["value"].startswith("abcdef"), len(g["value"].encode())
mv = {x["value"]: x for x in m}
assert "rec\x00first" in mv, "report: no rec\\0first value"
mlong = [x for x in m if x.get("value_bytes") == whole]
assert mlong and mlong[0]["value_truncated"] is True and len(mlong[0]["value"].encode()) <= 255
PY
echo "dupes_nul: ok"
