#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# finalizer_queue.sh: a finalizer-queue leak is named. tests/programs/finalize/FinQueue.java
# blocks the Finalizer thread and leaves 20,000 finalizable objects (with their buffers:
# 40,000 objects, 20,640,000 bytes) behind it. No strong reference reaches them, so the heap
# `top` counts is a few MB, and analyze showed only "The class java.lang.ref.Finalizer"; the
# JVM keeps them all until their finalize() has run. analyze says so, in text and JSON.
set -euo pipefail
: "${LEAKRAY:?}" "${LEAKRAY_SRC:?}" "${LEAKRAY_BUILD:?}"
. "$LEAKRAY_SRC/tests/e2e/need_lib.bash"
need_tools javac java python3
work="$LEAKRAY_BUILD/tmp/finalizer_queue"
rm -rf "$work"
mkdir -p "$work/classes"
fail() { echo "FAIL: $*" >&2; exit 1; }
javac -nowarn -d "$work/classes" "$LEAKRAY_SRC/tests/programs/finalize/FinQueue.java" 2>/dev/null
java -Xmx256m -cp "$work/classes" FinQueue "$work/f.hprof"
"$LEAKRAY" analyze "$work/f.hprof" --json --no-timing >"$work/a.json" || [ $? = 1 ]
python3 - "$work/a.json" <<'PY' || fail "analyze --json: pending_finalization"
import json, sys
p = json.load(open(sys.argv[1]))["pending_finalization"]
assert p["objects"] == 40000 and p["bytes"] == 20640000, p
assert p["class"] == "FinQueue$Res" and p["class_count"] == 20000, p
PY
"$LEAKRAY" analyze "$work/f.hprof" --no-timing >"$work/a.txt" || [ $? = 1 ]
grep -q '^Waiting for finalization: 40,000 objects, 20.6 MB' "$work/a.txt" ||
    fail "analyze text: no word of what waits for finalization"
echo "finalizer_queue: ok"
