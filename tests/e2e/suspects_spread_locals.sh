#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# suspects_spread_locals.sh: memory held by the locals of many threads, each under the
# suspect share (tests/programs/suspects/SpreadLocals.java: 40 threads x 200 kB, about 70 %
# of the heap together) is a suspect as one group of instances, as any class's instances
# are; it was in none ("0 LARGEST RETAINERS", --fail-on-suspect never fired).
set -euo pipefail
: "${LEAKRAY:?}" "${LEAKRAY_SRC:?}" "${LEAKRAY_BUILD:?}"
. "$LEAKRAY_SRC/tests/e2e/need_lib.bash"
need_tools javac java python3
work="$LEAKRAY_BUILD/tmp/suspects_spread_locals"
rm -rf "$work"
mkdir -p "$work/classes"
fail() { echo "FAIL: $*" >&2; exit 1; }
javac -d "$work/classes" "$LEAKRAY_SRC/tests/programs/suspects/SpreadLocals.java"
java -Xmx64m -XX:+UseSerialGC -cp "$work/classes" SpreadLocals "$work/s.hprof"
rc=0
"$LEAKRAY" analyze --json --no-timing --fail-on-suspect 50 "$work/s.hprof" >"$work/a.json" ||
    rc=$?
[ $rc = 1 ] || fail "--fail-on-suspect 50: exit $rc"
python3 - "$work/a.json" <<'PY' || fail "the locals' group"
import json, sys
d = json.load(open(sys.argv[1]))
s = [x for x in d["suspects"] if "SpreadLocals$Payload" in json.dumps(x)]
assert s, [x.get("description") for x in d["suspects"]]
x = s[0]
assert x["count"] == 40, x
assert x["retained_bytes"] >= 40 * 200000, x
PY
echo "suspects_spread_locals: ok"
