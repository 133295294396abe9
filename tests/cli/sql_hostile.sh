#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# sql_hostile.sh: `leakray sql` shows strings from a dump the way every verb shows names:
# in the aligned table (a terminal) and TSV, C0 controls, DEL, C1 controls (U+0080-U+009F,
# e.g. the 8-bit CSI U+009B) and invalid UTF-8 are escaped as \xNN, and a character cut at the
# cell's 200-byte limit is left out rather than half-printed. On a V8 snapshot whose class
# names hold an OSC title sequence, a C1 CSI and a CSI clear (from the globals fixture), and on
# text SQL makes from bytes. JSON stays valid and keeps the exact names (U+FFFD for invalid
# UTF-8); CSV carries every byte (RFC 4180, as `histo --csv`).
set -euo pipefail
. "$(dirname "$0")/lib/common.bash"
cli_init sql-hostile
command -v python3 >/dev/null || skip "no python3"
command -v script >/dev/null || skip "no script(1) (util-linux) to give leakray a terminal"
fx=${LEAKRAY_FIXTURES:-$LEAKRAY_SRC/../shared/fixtures}/v8/globals.heapsnapshot
[ -f "$fx" ] || skip "no V8 fixture at $fx"

snap=$T/hostile.heapsnapshot
python3 - "$fx" "$snap" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
s = d["strings"]
s[s.index("Object")] = "Obj\x1b]0;pwn\x07ect\u009b31m"
s[s.index("TypedArray")] = "Typed\x1b[2JArray"
json.dump(d, open(sys.argv[2], "w"))
PY

# no ESC, BEL or C1 (UTF-8 C2 80..9F) byte, and no byte of invalid UTF-8, in FILE
clean() {
    if LC_ALL=C grep -q $'[\x1b\x07]' "$2"; then fail "$1: raw control byte on stdout"; fi
    if LC_ALL=C grep -qP '\xc2[\x80-\x9f]' "$2"; then fail "$1: raw C1 control on stdout"; fi
    python3 -c 'import sys; open(sys.argv[1], "rb").read().decode("utf-8")' "$2" 2>/dev/null ||
        fail "$1: invalid UTF-8 on stdout"
}

names="SELECT name FROM classes WHERE name LIKE 'Obj%ect%' OR name LIKE 'Typed%' ORDER BY name"
# 199 bytes of y then a 2-byte character: the 200-byte cut falls inside it
bytes="SELECT CAST(x'41ff42' AS TEXT) AS bad, char(155) || '2J' AS csi,
              printf('%.199c', 'y') || 'é' AS cut"

run sql --no-timing "$snap" "$names"
expect_rc 0
clean "sql (TSV)" "$T/out"
grep -qxF 'Obj\x1b]0;pwn\x07ect\xc2\x9b31m' "$T/out" || fail "TSV: the OSC and C1 name not shown escaped"
grep -qxF 'Typed\x1b[2JArray' "$T/out" || fail "TSV: the CSI name not shown escaped"

run sql --no-timing "$snap" "$bytes"
expect_rc 0
clean "sql (TSV) bytes" "$T/out"
want=$(printf 'A\\xffB\t\\xc2\\x9b2J\t%s...' "$(printf 'y%.0s' $(seq 199))")
grep -qxF "$want" "$T/out" || fail "TSV: invalid UTF-8, C1 or the cut character not as expected"

# the aligned table is drawn only on a terminal
script -qec "$LEAKRAY sql --no-timing $snap \"$names\"" /dev/null >"$T/tty" </dev/null ||
    fail "sql on a terminal failed"
clean "sql (table)" "$T/tty"
grep -qF 'Obj\x1b]0;pwn\x07ect\xc2\x9b31m' "$T/tty" || fail "table: the name not shown escaped"
script -qec "$LEAKRAY sql --no-timing $snap \"$bytes\"" /dev/null >"$T/tty" </dev/null ||
    fail "sql on a terminal failed"
clean "sql (table) bytes" "$T/tty"
grep -qF 'A\xffB  \xc2\x9b2J  yyy' "$T/tty" || fail "table: escaped cells not aligned as shown"

run sql --no-timing --json "$snap" "$names; $bytes"
expect_rc 0
json_eq "d['results'][0]['rows']" '[["Obj\u001b]0;pwn\u0007ect\u009b31m"], ["Typed\u001b[2JArray"]]'
json_eq "d['results'][1]['rows'][0][:2]" '["A\ufffdB", "\u009b2J"]'

run sql --no-timing --csv "$snap" "$names"
expect_rc 0
grep -qxF $'Typed\x1b[2JArray' "$T/out" || fail "CSV: the exact bytes not kept"
echo "ok: sql escapes C0, DEL, C1 and invalid UTF-8 in tables and TSV"
