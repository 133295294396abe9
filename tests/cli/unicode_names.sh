#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# unicode_names.sh: names past the Basic Multilingual Plane. The JVM writes class and field
# names in modified UTF-8, where U+1D49C (𝒜) is a surrogate pair of 6 bytes that no UTF-8
# reader takes; tests/programs/unicode/Names.java names a class Ünïcødé漢字𝒜Cache and its
# field 𝓭𝓪𝓽𝓪. histo, sql and analyze --watch must give the names as the source wrote them
# (4-byte UTF-8), never replacement characters; the leak signature stays Shark's.
set -euo pipefail
. "$(dirname "$0")/lib/common.bash"
cli_init unicode-names
cli_need_java
# the class file is named after the class: the JDK needs a UTF-8 locale to write it
export LC_ALL=C.UTF-8
javac -encoding UTF-8 -d "$T/classes" "$LEAKRAY_SRC/tests/programs/unicode/Names.java" ||
    fail "javac Names.java"
java -cp "$T/classes" Names "$T/n.hprof" >/dev/null || fail "java Names"
cls='Names$Ünïcødé漢字𝒜Cache'

run histo --json --no-timing "$T/n.hprof"
expect_rc 0
json_get 'sum(r["count"] for r in d["classes"] if r["name"] == "'"$cls"'")' >"$T/n"
[ "$(cat "$T/n")" = 3 ] || fail "histo: $cls has $(cat "$T/n") instances, want 3"
run sql --no-timing "$T/n.hprof" "select distinct name from fields where name like '%𝓪%'"
expect_rc 0
expect_out '^𝓭𝓪𝓽𝓪$'
run analyze --no-timing --watch "$cls" "$T/n.hprof"
expect_out "Leaking: YES \\(Names\\\$Ünïcødé漢字𝒜Cache is watched\\)"
grep -q $'\xef\xbf\xbd' "$T/out" && fail "analyze printed a replacement character"
# The signature is Shark's: SHA-1 over the suspect references' class and generic names as
# Shark reads them, each character past U+FFFF as two U+FFFD (the surrogate pair decoded).
run analyze --json --no-timing --watch 'Names$Screen' "$T/n.hprof"
python3 - "$T/out" <<'PY' || fail "signature is not Shark's"
import hashlib, json, sys
t = json.load(open(sys.argv[1]))["traces"][0]
s = ""
for e in t["elements"]:
    r = e.get("reference")
    if r and r.get("suspect"):
        s += e["class"] + ("[x]" if r["type"] == "array_entry" else r["name"])
assert "𝒜" in s and "𝓼𝓬𝓻𝓮𝓮𝓷" in s, s
shark = "".join("\ufffd\ufffd" if ord(c) > 0xFFFF else c for c in s)
assert t["signature"] == hashlib.sha1(shark.encode()).hexdigest(), (s, t["signature"])
PY
echo "ok: names past U+FFFF read as the source wrote them" >&2
