#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# group_sizes.sh: a leak's total ("N bytes retained by leaking objects", JSON
# application_leaks[].retained_bytes) and its leaking object's own size ("Retaining ...")
# come from one reachability. An HPROF object keeps its class (and so the class's statics
# and loader) only when a loader defined the class: the boot loader's classes are never
# unloaded, and the dominators take no hop into them. Written here, in Python, as a dump:
# a JNI global holds a Holder whose fields hold a Leaky (a boot class, no root, whose
# static holds a 100,000-byte array) and a Plugin (defined by a loader object, whose static
# holds a 50,000-byte array). Leaky's group must not count the boot class's array (it did:
# 100,040 against the object's 16 bytes); Plugin's must count its class, array and loader,
# as its object's size does. `path` agrees with `show`: class Leaky is unreachable in both
# (path went through the instance's implicit <class> hop, while show said unreachable),
# class Plugin is reached through its instance in both.
set -euo pipefail
: "${LEAKRAY:?}" "${LEAKRAY_SRC:?}" "${LEAKRAY_BUILD:?}"
. "$LEAKRAY_SRC/tests/e2e/need_lib.bash"
need_tools python3
work="$LEAKRAY_BUILD/tmp/group_sizes"
rm -rf "$work"
mkdir -p "$work"
fail() { echo "FAIL: $*" >&2; exit 1; }

PYTHONPATH="$LEAKRAY_SRC/tests/lib" python3 - "$work/boot.hprof" <<'PY'
import sys
from hprofgen import (byte_array, class_dump, dump, instance, jni_global, load,
                      sticky_class, utf8)
OBJECT, LEAKY, HOLDER, PLUGIN, LOADER = 0x100, 0x200, 0x300, 0x400, 0x500
names = ["java/lang/Object", "Leaky", "Holder", "Plugin", "java/lang/ClassLoader",
         "item", "plugin", "cache"]
strings = b"".join(utf8(sid, s) for sid, s in enumerate(names, 1))
loads = b"".join(load(serial, cid, serial)
                 for serial, cid in enumerate([OBJECT, LEAKY, HOLDER, PLUGIN, LOADER], 1))
seg = class_dump(OBJECT, 0, 0) + class_dump(LOADER, OBJECT, 0)
seg += class_dump(LEAKY, OBJECT, 0, statics=[(8, 0x5000)])
seg += class_dump(PLUGIN, OBJECT, 0, loader=0x6000, statics=[(8, 0x7000)])
seg += class_dump(HOLDER, OBJECT, 16, fields=[6, 7])
seg += instance(0x1000, HOLDER, [0x2000, 0x3000]) + instance(0x2000, LEAKY, [])
seg += instance(0x3000, PLUGIN, []) + instance(0x6000, LOADER, [])
seg += byte_array(0x5000, 100000) + byte_array(0x7000, 50000)
for sticky in (OBJECT, HOLDER, LOADER):  # Leaky (boot, unrooted) and Plugin are not
    seg += sticky_class(sticky)
seg += jni_global(0x1000, 0x77)  # the holder
open(sys.argv[1], "wb").write(dump(strings, loads, seg))
PY

"$LEAKRAY" analyze "$work/boot.hprof" --watch Leaky --watch Plugin --json --no-timing \
    --no-suspects > "$work/a.json" || fail "analyze failed"
python3 - "$work/a.json" <<'PY' || fail "group sizes: $(head -c 1500 "$work/a.json")"
import json, sys
d = json.load(open(sys.argv[1]))
assert len(d["application_leaks"]) == 2, d["application_leaks"]
seen = {}
for leak in d["application_leaks"]:
    (ti,) = leak["traces"]
    last = d["traces"][ti]["elements"][-1]
    # one leaking object: its group retains exactly what the object retains
    assert leak["retained_bytes"] == last["retained_bytes"], (leak, last)
    assert leak["retained_objects"] == last["retained_objects"], (leak, last)
    seen[last["class"]] = leak["retained_bytes"]
# the boot class's static array is not Leaky's; Plugin keeps its class, array and loader
assert seen["Leaky"] < 1000, seen
assert seen["Plugin"] > 50000, seen
PY
dom() { "$LEAKRAY" show "$work/boot.hprof" "$1" --no-timing | sed -n 's/^dominator: *//p'; }
[ "$(dom 0x200)" = "none (unreachable)" ] || fail "show class Leaky: $(dom 0x200)"
"$LEAKRAY" path "$work/boot.hprof" 0x200 --no-timing > "$work/leaky.path"
grep -q '^0x200 class Leaky is unreachable' "$work/leaky.path" ||
    fail "path to the boot class Leaky: $(cat "$work/leaky.path")"
[ "$(dom 0x400)" = "0x3000 Plugin" ] || fail "show class Plugin: $(dom 0x400)"
"$LEAKRAY" path "$work/boot.hprof" 0x400 --no-timing > "$work/plugin.path"
grep -q -- '--\[implicit <class>\]-->' "$work/plugin.path" ||
    fail "path to class Plugin: $(cat "$work/plugin.path")"
echo "group_sizes: ok"
