#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# foundation_values.sh: a JVM writes a heap dump with known contents
# (tests/programs/foundation/FoundationDump.java), once with compressed oops and once
# without, and `leakray show --json` must report every known value exactly: statics of every
# primitive type, instance fields of every type, Latin-1/UTF-16/empty strings, null and
# object references, a shadowed field in a subclass, primitive arrays of every element type
# with their lengths and first elements, an object array, and the thread-local object whose
# only strong root is a Java frame of a parked thread.
set -euo pipefail
. "$(dirname "$0")/foundation_lib.bash"
fdn_init foundation_values
fdn_need_java

for mode in coops nocoops; do
    opts=()
    [ "$mode" = nocoops ] && opts=(-XX:-UseCompressedOops)
    dump=$FDN_TMP/$mode.hprof
    fdn_make_dump "$dump" "${opts[@]}"
    python3 - "$LEAKRAY" "$dump" "$mode" <<'PY' || fdn_fail "values differ in the $mode dump"
import json, subprocess, sys

leakray, dump, mode = sys.argv[1:4]
errors = []

def show(what, limit=40):
    p = subprocess.run([leakray, "show", "--json", "--no-timing", "--limit", str(limit), dump, what],
                       capture_output=True, text=True)
    if p.returncode != 0:
        raise SystemExit(f"FAIL: leakray show {what}: exit {p.returncode}: {p.stderr.strip()}")
    return json.loads(p.stdout)["object"]

def check(what, got, want):
    ok = got == want and type(got) == type(want)
    print(f"  {'ok ' if ok else 'BAD'} {mode} {what}: {got!r}" + ("" if ok else f" (want {want!r})"))
    if not ok:
        errors.append(what)

def statics(cls):
    return {s["name"]: s for s in show(cls)["class_info"]["statics"]}

def fields(obj_id):
    o = show(obj_id)
    fs = {}
    for f in o["fields"]:
        fs.setdefault(f["name"], f)  # most-derived first: the first one wins
    return o, fs

# ---- statics of every type ----
st = statics("LrStatics")
for name, want in [("S_BOOL", True), ("S_CHAR", "Q"), ("S_FLOAT", 2.5), ("S_DOUBLE", -1234.0625),
                   ("S_BYTE", -128), ("S_SHORT", 32767), ("S_INT", -2147483647),
                   ("S_LONG", 9007199254740993), ("S_NULL", None)]:
    check(f"LrStatics.{name}", st[name]["value"], want)
check("LrStatics.S_STRING", st["S_STRING"].get("string"), "static string")
main = statics("FoundationDump")
check("FoundationDump.FOO_COUNT", main["FOO_COUNT"]["value"], 12345)

# ---- instance fields of every type ----
v, fv = fields(main["VALUES"]["value"])
check("VALUES class", v["class"], "FoundationDump$FieldValues")
check("VALUES kind", v["kind"], "instance")
for name, want in [("aBool", True), ("aChar", "\u00e9"), ("aFloat", 1.25),
                   ("aDouble", 3.141592653589793), ("aByte", -5), ("aShort", -30000),
                   ("anInt", 123456789), ("aLong", -81985529216486896), ("nothing", None)]:
    check(f"VALUES.{name}", fv[name]["value"], want)
check("VALUES.latin", fv["latin"].get("string"), "leakray latin-1 caf\u00e9")
check("VALUES.utf16", fv["utf16"].get("string"), "snow \u2603 man")
check("VALUES.empty", fv["empty"].get("string"), "")
check("VALUES.ref class", fv["ref"].get("class"), "FoundationDump$Foo")
_, foo7 = fields(fv["ref"]["value"])
check("VALUES.ref.index", foo7["index"]["value"], 7)
_, nxt = fields(fv["next"]["value"])
check("VALUES.next.anInt", nxt["anInt"]["value"], -1)
check("VALUES.next.aLong", nxt["aLong"]["value"], 9223372036854775807)
check("VALUES.next.aChar", nxt["aChar"]["value"], "x")
check("VALUES.next.latin", nxt["latin"].get("string"), "second")
check("VALUES.next.next", nxt["next"]["value"], None)

# ---- a field shadowed by a subclass: both values, each with its declaring class ----
sh = show(main["SHADOW"]["value"])
ints = sorted((f.get("declared_in"), f["value"]) for f in sh["fields"] if f["name"] == "anInt")
check("SHADOW.anInt (both)", ints,
      [("FoundationDump$Base", 11), ("FoundationDump$Shadow", 22)])
check("SHADOW.baseOnly", [f["value"] for f in sh["fields"] if f["name"] == "baseOnly"], [-77])

# ---- primitive arrays of every element type ----
_, pa = fields(main["PRIMS"]["value"])
arrays = {
    "z": ("boolean[]", "boolean", 11, [True, False, False, True]),
    "c": ("char[]", "char", 12, ["a", "b", "c", "d"]),
    "f": ("float[]", "float", 13, [0.5, 1.5, 2.5, 3.5]),
    "d": ("double[]", "double", 14, [-0.0, -0.25, -0.5, -0.75]),
    "b": ("byte[]", "byte", 1001, [0, 1, 2, 3]),
    "s": ("short[]", "short", 15, [0, -1000, -2000, -3000]),
    "i": ("int[]", "int", 777, [0, 1, 4, 9]),
    "j": ("long[]", "long", 16, [1, 16, 256, 4096]),
}
for field, (cls, et, n, first) in arrays.items():
    a = show(pa[field]["value"], limit=4)
    check(f"PRIMS.{field} class", a["class"], cls)
    check(f"PRIMS.{field} kind", a["kind"], "primitive array")
    check(f"PRIMS.{field} element_type", a["array"]["element_type"], et)
    check(f"PRIMS.{field} length", a["array"]["length"], n)
    check(f"PRIMS.{field} elements", a["array"]["elements"][:4], first)
oa = show(pa["o"]["value"], limit=0)
check("PRIMS.o class", oa["class"], "java.lang.Object[]")
check("PRIMS.o length", oa["array"]["length"], 17)
els = oa["array"]["elements"]
check("PRIMS.o[0]", els[0].get("string"), "first")
check("PRIMS.o[1]", els[1]["value"], None)
check("PRIMS.o[16] class", els[16].get("class"), "char[]")
check("PRIMS.o[16] id", els[16]["value"], pa["c"]["value"])
nested = show(pa["nested"]["value"], limit=0)
check("PRIMS.nested class", nested["class"], "FoundationDump$Foo[][]")
check("PRIMS.nested length", nested["array"]["length"], 3)

# ---- the parked thread's local: rooted by a Java frame only, weakly referred ----
ref = show(main["MARKER_REF"]["value"])
marker_id = [f for f in ref["fields"] if f["name"] == "referent"][0]["value"]
m = show(marker_id)
check("marker class", m["class"], "LrLocalMarker")
check("marker stamp", [f["value"] for f in m["fields"] if f["name"] == "stamp"], [0x5EED5EED])
check("marker roots", m["roots"], ["Java frame"])
check("marker referrers", [(r["class"], r["strength"]) for r in m["referrers"]],
      [("java.lang.ref.WeakReference", "weak")])

# ---- the same local seen from its thread: `threads` names the frame holding it ----
p = subprocess.run([leakray, "threads", "--json", "--no-timing", dump], capture_output=True, text=True)
if p.returncode != 0:
    raise SystemExit(f"FAIL: leakray threads: exit {p.returncode}: {p.stderr.strip()}")
holders = [t for t in json.loads(p.stdout)["threads"] if t.get("name") == "lr-holder"]
check("threads: one lr-holder", len(holders), 1)
if holders:
    frames = holders[0]["frames"]
    check("lr-holder innermost frame is native park", (frames[0]["method"], frames[0]["line"]),
          ("park", -3))
    held = [(f["method"], f["line"] > 0) for f in frames
            for l in f["locals"] if l["id"] == marker_id]
    check("lr-holder frame holding the marker", held, [("lambda$main$0", True)])

if errors:
    print(f"FAIL: {len(errors)} mismatches: {', '.join(errors)}")
    sys.exit(1)
PY
done
echo "PASS: foundation values (compressed and uncompressed oops)"
