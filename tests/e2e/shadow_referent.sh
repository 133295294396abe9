#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# shadow_referent.sh: `ignore instance java.lang.ref.WeakReference#referent` (rules/jdk.rules)
# names the field Reference declares. tests/programs/refs/ShadowReferent.java holds one
# Screen through a WeakReference subclass's own strong field `referent`, another through a
# plain WeakReference only. analyze --watch Screen must find the first through
# ShadowRef.referent and leave the second unreachable (Shark 2.14 ignores both: it matches
# the field by name alone).
set -euo pipefail
: "${LEAKRAY:?}" "${LEAKRAY_SRC:?}" "${LEAKRAY_BUILD:?}"
. "$LEAKRAY_SRC/tests/e2e/need_lib.bash"
need_tools javac java python3
fail() { echo "FAIL: $*" >&2; exit 1; }
W=$LEAKRAY_BUILD/tmp/shadow_referent
rm -rf "$W"
mkdir -p "$W/classes"
javac -d "$W/classes" "$LEAKRAY_SRC/tests/programs/refs/ShadowReferent.java"
java -Xmx64m -cp "$W/classes" ShadowReferent "$W/s.hprof"
rc=0
"$LEAKRAY" analyze --json --no-timing --watch 'ShadowReferent$Screen' "$W/s.hprof" \
    >"$W/a.json" || rc=$?
[ "$rc" = 0 ] || [ "$rc" = 1 ] || fail "analyze exited $rc"
python3 - "$W/a.json" <<'PY' || fail "the strongly held Screen was not found, or the weak one was"
import json, sys
d = json.load(open(sys.argv[1]))
traces = d["traces"]
assert len(traces) == 1, [t["elements"][-1]["class"] for t in traces]
refs = [(e["class"], e.get("reference", {}).get("name")) for e in traces[0]["elements"]]
assert ("ShadowReferent$ShadowRef", "referent") in refs, refs
assert refs[-1][0] == "ShadowReferent$Screen", refs
assert len(d["unreachable_objects"]) == 1, d["unreachable_objects"]
PY
echo "shadow_referent: ok"
