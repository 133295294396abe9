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

python3 - "$work/boot.hprof" <<'PY'
import struct, sys
def u1(v): return struct.pack(">B", v)
def u2(v): return struct.pack(">H", v)
def u4(v): return struct.pack(">I", v)
def i8(v): return struct.pack(">Q", v)
def rec(tag, body): return u1(tag) + u4(0) + u4(len(body)) + body
def utf8(sid, s): return rec(0x01, i8(sid) + s.encode())
def load(serial, cid, name): return rec(0x02, u4(serial) + i8(cid) + u4(0) + i8(name))
def class_dump(cid, sup, size, loader=0, fields=(), statics=()):
    # super, then loader, signers, protection domain and two reserved ids
    b = u1(0x20) + i8(cid) + u4(0) + i8(sup) + i8(loader) + i8(0) * 4 + u4(size) + u2(0)
    b += u2(len(statics)) + b"".join(i8(n) + u1(2) + i8(v) for n, v in statics)
    return b + u2(len(fields)) + b"".join(i8(n) + u1(2) for n in fields)
def instance(oid, cid, refs):
    return u1(0x21) + i8(oid) + u4(0) + i8(cid) + u4(8 * len(refs)) + b"".join(map(i8, refs))
def byte_array(oid, n): return u1(0x23) + i8(oid) + u4(0) + u4(n) + u1(8) + bytes(n)
OBJECT, LEAKY, HOLDER, PLUGIN, LOADER = 0x100, 0x200, 0x300, 0x400, 0x500
out = b"JAVA PROFILE 1.0.2\0" + u4(8) + i8(1700000000000)
names = ["java/lang/Object", "Leaky", "Holder", "Plugin", "java/lang/ClassLoader",
         "item", "plugin", "cache"]
for sid, s in enumerate(names, 1):
    out += utf8(sid, s)
for serial, cid in enumerate([OBJECT, LEAKY, HOLDER, PLUGIN, LOADER], 1):
    out += load(serial, cid, serial)
seg = class_dump(OBJECT, 0, 0) + class_dump(LOADER, OBJECT, 0)
seg += class_dump(LEAKY, OBJECT, 0, statics=[(8, 0x5000)])
seg += class_dump(PLUGIN, OBJECT, 0, loader=0x6000, statics=[(8, 0x7000)])
seg += class_dump(HOLDER, OBJECT, 16, fields=[6, 7])
seg += instance(0x1000, HOLDER, [0x2000, 0x3000]) + instance(0x2000, LEAKY, [])
seg += instance(0x3000, PLUGIN, []) + instance(0x6000, LOADER, [])
seg += byte_array(0x5000, 100000) + byte_array(0x7000, 50000)
for sticky in (OBJECT, HOLDER, LOADER):  # Leaky (boot, unrooted) and Plugin are not
    seg += u1(0x05) + i8(sticky)
seg += u1(0x01) + i8(0x1000) + i8(0x77)  # JNI global: the holder
out += rec(0x0C, seg) + rec(0x2C, b"")
open(sys.argv[1], "wb").write(out)
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
