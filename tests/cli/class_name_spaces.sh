#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# class_name_spaces.sh: a JVM class whose name holds spaces and a comma (Kotlin's backticked
# test functions compile to `app.LeakTest$activity should not leak, ever$1`) loses its package
# in a trace's reference lines, as every other class does and as Shark prints it. A name with a
# space was kept whole, package and all, a rule meant for V8's names ("Window / https://...",
# "{email, profile}"); those keep theirs.
set -euo pipefail
. "$(dirname "$0")/lib/common.bash"
cli_init class-name-spaces
command -v python3 >/dev/null || skip "no python3"
PYTHONPATH="$LEAKRAY_SRC/tests/lib" python3 - "$T/k.hprof" <<'PY'
import sys
from hprofgen import Strings, class_dump, dump, instance, load, sticky_class
st = Strings()
OBJ, MAIN, LAM, SCREEN = 0x100, 0x200, 0x300, 0x400
loads = load(1, OBJ, st.sid("java/lang/Object")) + load(2, MAIN, st.sid("app/Main")) + \
    load(3, LAM, st.sid("app/LeakTest$activity should not leak, ever$1")) + \
    load(4, SCREEN, st.sid("app/Screen"))
LAMO, SCR = 0x9000, 0x9100
seg = class_dump(OBJ, 0, 0) + class_dump(MAIN, OBJ, 0, statics=[(st.sid("HOLD"), LAMO)]) + \
    class_dump(LAM, OBJ, 8, fields=[st.sid("v")]) + class_dump(SCREEN, OBJ, 0)
seg += instance(LAMO, LAM, [SCR]) + instance(SCR, SCREEN, [])
seg += sticky_class(OBJ) + sticky_class(MAIN)
open(sys.argv[1], "wb").write(dump(st.records(), loads, seg))
PY
run analyze "$T/k.hprof" --watch app.Screen --no-timing --no-suspects
expect_rc 0
grep -q '^│    ↓ LeakTest\$activity should not leak, ever\$1\.v$' "$T/out" ||
    fail "the reference line keeps the package: $(grep -F '.v' "$T/out")"
grep -q 'app\.LeakTest\$activity should not leak, ever\$1 instance' "$T/out" ||
    fail "the object line lost its full name"
echo "class_name_spaces: ok"
