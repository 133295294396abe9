#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# short_instance.sh: an HPROF instance record shorter than its class's fields (a cut or
# forged record) loses the references past its end; that was silent, and a reference to a
# leak could vanish from every answer. `info` counts them (short_instance, data-loss) and
# every verb says so on stderr; the references the record does hold stay.
set -euo pipefail
. "$(dirname "$0")/lib/common.bash"
cli_init short-instance
command -v python3 >/dev/null || skip "no python3"
PYTHONPATH="$LEAKRAY_SRC/tests/lib" python3 - "$T/short.hprof" <<'PY'
import sys
from hprofgen import Strings, class_dump, dump, i8, jni_global, load, sticky_class, u1, u4
st = Strings()
OBJ, PAIR = 0x100, 0x200
loads = load(1, OBJ, st.sid("java/lang/Object")) + load(2, PAIR, st.sid("Pair"))
seg = class_dump(OBJ, 0, 0) + class_dump(PAIR, OBJ, 16, fields=(st.sid("a"), st.sid("b")))
def pair(oid, refs, nbytes):
    body = b"".join(map(i8, refs))[:nbytes]
    return u1(0x21) + i8(oid) + u4(0) + i8(PAIR) + u4(len(body)) + body
seg += pair(0x1000, [0x2000, 0x3000], 16)   # whole: a and b
seg += pair(0x4000, [0x5000, 0x6000], 8)    # short: a only
seg += pair(0x7000, [0x8000, 0x9000], 12)   # short: a, half of b
for o in (0x2000, 0x3000, 0x5000, 0x6000, 0x8000, 0x9000):
    seg += u1(0x21) + i8(o) + u4(0) + i8(OBJ) + u4(0)
seg += jni_global(0x1000, 1) + jni_global(0x4000, 2) + jni_global(0x7000, 3)
seg += sticky_class(OBJ) + sticky_class(PAIR)
open(sys.argv[1], "wb").write(dump(st.records(), loads, seg))
PY
run info "$T/short.hprof" --json --no-timing
expect_rc 0
[ "$(json_get '[x["count"] for x in d["diagnostics"] if x["name"] == "short_instance"]')" = "[2]" ] ||
    fail "diagnostics: $(json_get 'd["diagnostics"]')"
run info "$T/short.hprof" --no-timing
expect_out 'short_instance +data-loss +2  instance records shorter than their class'
run top "$T/short.hprof" --no-timing
expect_err 'short.hprof: warning: 2 instance records shorter than their class.s fields'
# the references the short records hold are kept: 2 + 1 + 1
run sql "$T/short.hprof" --no-timing "SELECT count(*) FROM edges WHERE src IN (4096, 16384, 28672)"
expect_out '^4$'
echo "short_instance: ok"
