#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# dartheap.py: writes Dart VM heap snapshots ("dartheap") byte for byte as the VM's
# HeapSnapshotWriter lays them out, for tests: no Dart runtime is installed on the machines
# that build leakray. The heap modelled is a Flutter screen leak: a library static `_cache`
# (a _GrowableList) keeps N CheckoutPageState objects alive, each with its widget, its element
# (which points back at the state) and a TextEditingController with a listener closure; plus a
# _WeakReferenceImpl whose target nothing else holds (must count as unreachable) and one
# external (native) allocation. usage: dartheap.py OUT new|old N [REPORT]
#   new: the current layout (three extra classes Root/Read-Only Pages/Isolate, VM class ids
#        shifted by 3, identity hashes at the end); old: the 2020/21 layout (root object with
#        class 0, no extra classes, no identity hashes).
# REPORT (new layout only): also writes a report as Flutter's leak_tracker serialises its Leaks
# (JSON: leak type -> list of {type, context, code, tracked, phase}), naming objects of the
# snapshot by identity hash: the first two screens' states not GCed, the third screen's
# controller not disposed, its widget under a generic runtime type, the weakly held page GCed
# late, plus two reports the snapshot cannot match (a collected object's hash, and a live
# hash under the wrong type).
import struct
import sys


def uleb(v):
    out = bytearray()
    v &= (1 << 64) - 1
    while True:
        b = v & 0x7F
        v >>= 7
        if v:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def sleb(v):
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        if (v == 0 and not b & 0x40) or (v == -1 and b & 0x40):
            out.append(b)
            return bytes(out)
        out.append(b | 0x80)


def s(text):
    b = text.encode()
    return uleb(len(b)) + b


def main():
    out, layout, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
    new = layout == "new"
    # (name, library, fields {index: name})
    vm_classes = [
        ("_GrowableList", "dart:core", {0: "_typeArguments", 1: "_length", 2: "_data"}),
        ("_List", "dart:core", {}),
        ("_OneByteString", "dart:core", {}),
        ("_Smi", "dart:core", {}),
        ("CheckoutPageState", "package:shop/checkout.dart", {0: "_widget", 1: "_element",
                                                             2: "_controller"}),
        ("StatefulElement", "package:flutter/src/widgets/framework.dart",
         {0: "_state", 1: "_parent", 2: "_widget"}),
        ("CheckoutPage", "package:shop/checkout.dart", {0: "title"}),
        ("TextEditingController", "package:flutter/src/widgets/editable_text.dart",
         {0: "_listeners", 1: "_value"}),
        ("_Closure", "dart:core", {0: "_context", 1: "_function"}),
        ("_WeakReferenceImpl", "dart:core", {0: "_target"}),
        ("_Mint", "dart:core", {}),
        ("_Double", "dart:core", {}),
    ]
    classes = []
    if new:
        classes += [("Root", "", {}), ("Read-Only Pages", "", {}),
                    ("Isolate", "", {0: "_cache", 1: "_weak", 2: "_big"})]
    else:
        # The old layout has no Isolate class: the root holds the statics directly.
        vm_classes.insert(0, ("Isolate", "", {0: "_cache", 1: "_weak", 2: "_big"}))
    classes += vm_classes
    cid = {name: i + 1 for i, (name, _, _) in enumerate(classes)}

    objs = []  # (class id, size, data bytes, [refs])

    def obj(cls, size, data=b"\x00", refs=()):
        objs.append([cid[cls] if cls else 0, size, data, list(refs)])
        return len(objs)

    root = obj("Root" if new else None, 0)
    if new:
        obj("Read-Only Pages", 0)
    iso = obj("Isolate", 0)
    objs[root - 1][3] = ([root + 1] if new else []) + [iso]
    glist = obj("_GrowableList", 32, b"\x07" + uleb(n))
    backing = obj("_List", 16 + 8 * n, b"\x07" + uleb(n))
    length = obj("_Smi", 0, b"\x03" + uleb(n))
    objs[glist - 1][3] = [0, length, backing]
    states = []
    for i in range(n):
        title = obj("_OneByteString", 32, b"\x05" + uleb(8) + uleb(8) + b"checkout")
        widget = obj("CheckoutPage", 16, b"\x00", [title])
        state = obj("CheckoutPageState", 48)
        element = obj("StatefulElement", 64, b"\x00", [state, 0, widget])
        closure = obj("_Closure", 32, b"\x00", [state, 0])
        listeners = obj("_List", 24, b"\x07" + uleb(1), [closure])
        ctrl = obj("TextEditingController", 40, b"\x00", [listeners, 0])
        objs[state - 1][3] = [widget, element, ctrl]
        states.append(state)
    objs[backing - 1][3] = states
    lonely = obj("CheckoutPage", 16)  # only weakly held
    weak = obj("_WeakReferenceImpl", 16, b"\x00", [lonely])
    big = obj("_Mint", 16, b"\x03" + sleb(-(1 << 62)))
    dbl = obj("_Double", 16, b"\x04" + struct.pack("<d", 2.5))
    objs[iso - 1][3] = [glist, weak, big]
    objs[root - 1][3].append(dbl)

    b = bytearray(b"dartheap")
    b += uleb(0) + s("main") + uleb(1 << 20) + uleb(2 << 20) + uleb(4096)
    b += uleb(len(classes))
    for name, lib, fields in classes:
        b += uleb(0) + s(name) + s(lib.split("/")[-1]) + s(lib) + s("")
        b += uleb(len(fields))
        for ix in sorted(fields, reverse=True):  # any order: the reader sorts
            b += uleb(1) + uleb(ix) + s(fields[ix]) + s("")
    b += uleb(sum(len(o[3]) for o in objs)) + uleb(len(objs))
    for c, size, data, refs in objs:
        b += uleb(c) + uleb(size) + data + uleb(len(refs))
        for r in refs:
            b += uleb(r)
    b += uleb(1) + uleb(backing) + uleb(4096) + s("Unknown native function")
    def ihash(o):  # identity hash of object id o (1-based); the root's is 0 (none)
        return ((o - 1) * 2654435761) & 0x7FFFFFFF

    if new:
        for i in range(len(objs)):
            b += uleb(ihash(i + 1))
    open(out, "wb").write(b)
    if len(sys.argv) > 4:
        ctrl3 = objs[states[2] - 1][3][2]
        widget3 = objs[states[2] - 1][3][0]
        hashes = {ihash(o) for o in range(1, len(objs) + 1)}
        gone = next(h for h in range(1, 1 << 31) if h not in hashes)

        def rep(t, o, tracked, code=None):
            return {"type": t, "context": {"start": "#0 State.initState (framework.dart:1)"},
                    "code": ihash(o) if code is None else code, "tracked": tracked,
                    "phase": None}

        leaks = {
            "notDisposed": [rep("TextEditingController", ctrl3, "ChangeNotifier"),
                            rep("CheckoutPage<dynamic>", widget3, "Widget"),
                            rep("TextEditingController", 0, "ChangeNotifier", gone)],
            "notGCed": [rep("CheckoutPageState", states[0], "State"),
                        rep("CheckoutPageState", states[1], "State"),
                        rep("StatefulElement", states[1], "Element")],
            "gcedLate": [rep("CheckoutPage", lonely, "Widget")],
        }
        import json
        open(sys.argv[4], "w").write(json.dumps(leaks, indent=2) + "\n")


if __name__ == "__main__":
    main()
