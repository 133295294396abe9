#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# pending_next.sh: JDK 5 and 6 chain the GC's pending list (references it has just cleared,
# head in the static Reference.pending) through Reference.next, and a ReferenceQueue chains
# the references enqueued on it through the same field. Only the queue's chain owns what it
# links: a reference is enqueued when its queue is ReferenceQueue.ENQUEUED. Written here, in
# Python, as a JDK 6-like dump: pending list P1 -> P2 -> P3 (queue ReferenceQueue.NULL), P1
# and P2 also held by owners; a queue whose head E1 links E2 (queue ENQUEUED); and a
# cleaner-like subclass whose own field `next` (not Reference.next) links C1 -> C2.
#  - P2 belongs to its owner, not to the reference before it on the GC's list (was: held by
#    both, dominator the GC roots); P3, on the GC's list only, is unreachable (was: kept by P2);
#  - E2 is kept by E1 (the queue's chain), and C2 by C1 (the subclass's list), as before.
set -euo pipefail
: "${LEAKRAY:?}" "${LEAKRAY_SRC:?}" "${LEAKRAY_BUILD:?}"
. "$LEAKRAY_SRC/tests/e2e/need_lib.bash"
need_tools python3
work="$LEAKRAY_BUILD/tmp/pending_next"
rm -rf "$work"
mkdir -p "$work"
fail() { echo "FAIL: $*" >&2; exit 1; }

PYTHONPATH="$LEAKRAY_SRC/tests/lib" python3 - "$work/jdk6.hprof" <<'PY'
import sys
from hprofgen import Strings, class_dump, dump, instance, jni_global, load, sticky_class
st = Strings()
OBJ, REF, WEAK, QUEUE, NULLC, OWNER, CLEAN = 0x100, 0x110, 0x120, 0x130, 0x140, 0x150, 0x160
NULLQ, ENQ, Q = 0x1000, 0x1001, 0x1002
P1, P2, P3, E1, E2, C1, C2 = 0x2001, 0x2002, 0x2003, 0x2101, 0x2102, 0x2201, 0x2202
O1, O2, OC = 0x3001, 0x3002, 0x3003
classes = [(OBJ, "java/lang/Object", 0, [], []),
           (REF, "java/lang/ref/Reference", OBJ, ["referent", "queue", "next", "discovered"],
            [("pending", P1)]),
           (WEAK, "java/lang/ref/WeakReference", REF, [], []),
           (QUEUE, "java/lang/ref/ReferenceQueue", OBJ, ["head"],
            [("NULL", NULLQ), ("ENQUEUED", ENQ)]),
           (NULLC, "java/lang/ref/ReferenceQueue$Null", QUEUE, [], []),
           (OWNER, "Owner", OBJ, ["ref"], []),
           (CLEAN, "Cleanable", WEAK, ["next"], [])]
seg = b""
for cid, name, sup, fields, statics in classes:
    seg += class_dump(cid, sup, 8 * len(fields),
                      statics=[(st.sid(n), v) for n, v in statics],
                      fields=[st.sid(f) for f in fields])
def weak(oid, queue, nxt): return instance(oid, WEAK, [0, queue, nxt, 0])
seg += instance(NULLQ, NULLC, [0]) + instance(ENQ, NULLC, [0]) + instance(Q, QUEUE, [E1])
seg += weak(P1, NULLQ, P2) + weak(P2, NULLQ, P3) + weak(P3, NULLQ, P3)
seg += weak(E1, ENQ, E2) + weak(E2, ENQ, E2)
# a subclass's own next comes first (most-derived class first), then Reference's fields
seg += instance(C1, CLEAN, [C2, 0, NULLQ, 0, 0]) + instance(C2, CLEAN, [0, 0, NULLQ, 0, 0])
seg += instance(O1, OWNER, [P1]) + instance(O2, OWNER, [P2]) + instance(OC, OWNER, [C1])
seg += b"".join(sticky_class(cid) for cid, *_ in classes)
for k, obj in enumerate([O1, O2, Q, OC]):
    seg += jni_global(obj, 0x70 + k)
loads = b"".join(load(serial, cid, st.sid(name))
                 for serial, (cid, name, *_) in enumerate(classes, 1))
open(sys.argv[1], "wb").write(dump(st.records(), loads, seg))
PY

dom() { "$LEAKRAY" show "$work/jdk6.hprof" "$1" --no-timing | sed -n 's/^dominator: *//p'; }
[ "$(dom 0x2002)" = "0x3002 Owner" ] || fail "P2 (pending, owned): dominator '$(dom 0x2002)'"
[ "$(dom 0x2001)" = "0x3001 Owner" ] || fail "P1 (pending head): dominator '$(dom 0x2001)'"
[ "$(dom 0x2003)" = "none (unreachable)" ] || fail "P3 (GC's list only): '$(dom 0x2003)'"
[ "$(dom 0x2102)" = "0x2101 java.lang.ref.WeakReference" ] ||
    fail "E2 (enqueued): dominator '$(dom 0x2102)'"
[ "$(dom 0x2202)" = "0x2201 Cleanable" ] || fail "C2 (subclass's next): '$(dom 0x2202)'"
# every verb's strong model agrees: top's reachable count leaves P3 out
"$LEAKRAY" top "$work/jdk6.hprof" --json --no-timing > "$work/top.json"
python3 - "$work/top.json" <<'PY' || fail "top: $(head -c 600 "$work/top.json")"
import json, sys
d = json.load(open(sys.argv[1]))
ids = {o["id"] for o in d["objects"]}
assert "0x2003" not in ids and "0x2002" in ids and "0x2102" in ids, ids
PY
echo "pending_next: ok"
