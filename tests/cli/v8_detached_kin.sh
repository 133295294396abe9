#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# v8_detached_kin.sh: snapshots of one page, before and after it removed a list it still
# holds, are one process. A removed DOM node keeps its id and becomes "Detached <li>", and
# an object given a property goes from `{a}` to `{a, b}`: the check that refuses snapshots
# of different processes counted those as objects that changed class, and refused `diff` and
# `leaks` exactly when a page leaked a big detached tree (a 20,000-row list: "only 33% keep
# their class"). Written here: a window whose `cache` holds 3,000 <li> (attached in the
# second snapshot, detached in the third) and whose `store` holds 1,000 records (given a
# property in the third); the third also has 40 classes a hot reload defined (they read as
# "different programs": 40 class names of 46 its own), and V8 15's scope names, one per object
# ("system / Context / scope @3007").
set -euo pipefail
. "$(dirname "$0")/lib/common.bash"
cli_init v8-detached-kin

PYTHONPATH="$LEAKRAY_SRC/tests/lib" python3 - "$T" <<'PY'
import sys
import v8gen

def write(path, n_li, detached, shape, n_new=0):
    li = ["native", "<li>", 0, 64, 2 if detached else 1]  # the reader adds "Detached "
    props = shape.strip("{}").split(", ")  # the reader names an Object by its properties
    # (type, name, id, size, detachedness, edges (type, name, to index))
    nodes = [("synthetic", "", 1, 0, 0, [("element", 1, 1)]),
             ("synthetic", "(GC roots)", 3, 0, 0, [("element", 1, 2)]),
             ("synthetic", "(Global handles)", 5, 0, 0, [("internal", "1 / ScriptState", 3)]),
             ("object", "system / NativeContext / file://", 7, 800, 1,
              [("internal", "global_object", 4)]),
             ("object", "Window [JSGlobalObject] / file://", 9, 24, 1,
              [("property", "cache", 5), ("property", "store", 6)]),
             ("array", "", 11, 16 + 8 * n_li, 0, [("element", k, 7 + k) for k in range(n_li)]),
             ("array", "", 13, 8016, 0, [("element", k, 7 + n_li + k) for k in range(1000)])]
    for k in range(n_li):
        nodes.append((li[0], li[1], 101 + 2 * k, li[3], li[4], []))
    text = 7 + n_li + 1000
    for k in range(1000):
        nodes.append(("object", "Object", 20001 + 2 * k, 32, 0,
                      [("property", pr, text) for pr in props]))
    nodes.append(("string", "x", 30001, 16, 0, []))
    nodes[4][5].extend(("property", "n%d" % k, len(nodes) + k) for k in range(n_new))
    for k in range(n_new):  # what the page made after, of classes a hot reload defined
        nodes.append(("object", "Reloaded%d" % (k % 40), 40001 + 2 * k, 24, 0, []))
    # a V8 15 closure scope, named after its object
    nodes[4][5].append(("property", "scope", len(nodes)))
    nodes.append(("object", "system / Context / scope @%d" % (n_li + 7), 50001, 40, 0, []))
    v8gen.write(path, nodes)

write(sys.argv[1] + "/s1.heapsnapshot", 0, False, "{id}")
write(sys.argv[1] + "/s2.heapsnapshot", 3000, False, "{id}")
write(sys.argv[1] + "/s3.heapsnapshot", 3000, True, "{id, seen}", 200)
PY

run diff "$T/s2.heapsnapshot" "$T/s3.heapsnapshot" --no-timing
expect_rc 0
run leaks --baseline "$T/s1.heapsnapshot" --target "$T/s2.heapsnapshot" \
    --final "$T/s3.heapsnapshot" --no-timing
expect_rc 0
expect_out '^leaked: 3,000 objects'
echo "v8_detached_kin: ok"
