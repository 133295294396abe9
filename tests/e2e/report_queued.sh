#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# report_queued.sh: leaks queued in a linked structure (tests/programs/report/QueuedLeaks.java:
# 3,000 listeners in a ConcurrentLinkedQueue, the k-th one's path k nodes long). The page
# carries analyze's screen traces, the two ends of each path, with how many references are
# left out between them (elements + elided_objects = path_length, and the gap drawn); every
# path whole made the page 2.6 GB at 4,000 listeners and 24 GB at 40,000 (killed). The
# analysis itself stays about linear (a group per listener walked its dominator chain).
set -euo pipefail
: "${LEAKRAY:?}" "${LEAKRAY_SRC:?}" "${LEAKRAY_BUILD:?}"
. "$LEAKRAY_SRC/tests/e2e/need_lib.bash"
need_tools javac java python3
work="$LEAKRAY_BUILD/tmp/report_queued"
rm -rf "$work"
mkdir -p "$work/classes"
fail() { echo "FAIL: $*" >&2; exit 1; }
javac -d "$work/classes" "$LEAKRAY_SRC/tests/programs/report/QueuedLeaks.java"
java -Xmx128m -cp "$work/classes" QueuedLeaks "$work/q.hprof"
W='QueuedLeaks$Listener'
# capped CMD...: under 4 GB of address space, so a page that grows without bound fails here
# rather than on the machine (AddressSanitizer's shadow needs the space: left uncapped)
capped() {
    if [[ $(ldd "$LEAKRAY" 2>/dev/null) == *libasan* ]]; then
        "$@"
    else
        (ulimit -v 4000000 && exec "$@")
    fi
}
capped "$LEAKRAY" report --no-timing --no-suspects --watch "$W" --format json \
    -o "$work/m.json" "$work/q.hprof" >/dev/null || fail "report: exit $?"
python3 - "$work/m.json" <<'PY' || fail "the page's traces"
import json, os, sys
m = json.load(open(sys.argv[1]))
assert os.path.getsize(sys.argv[1]) < 40 << 20, os.path.getsize(sys.argv[1])
assert len(m["groups"]) >= 1000, len(m["groups"])
steps = 0
for t in m["traces"]:
    n = len(t["elements"])
    steps += n
    assert n + t["elided_objects"] == t["path_length"], t["path_length"]
    assert t["elided_after"] <= n
assert any(t["elided_objects"] > 1000 for t in m["traces"]), "no long path left out"
assert steps <= 100000, steps
PY
capped "$LEAKRAY" report --no-timing --no-suspects --watch "$W" -o "$work/p.html" \
    "$work/q.hprof" >/dev/null || fail "report (page): exit $?"
grep -q 'more reference' "$work/p.html" || fail "the page draws no gap"
echo "report_queued: ok"
