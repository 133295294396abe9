#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# dartheap.py: writes Dart VM heap snapshots ("dartheap") byte for byte as the VM's
# HeapSnapshotWriter lays them out, for tests: no Dart runtime is installed on the machines
# that build leakray. The heap modelled is a Flutter screen leak: a library static `_cache`
# (a _GrowableList) keeps N CheckoutPageState objects alive, each with its widget, its element
# (which points back at the state) and a TextEditingController with a listener closure; plus a
# _WeakReferenceImpl whose target nothing else holds (must count as unreachable) and one
# external (native) allocation. usage: dartheap.py OUT new|old N [REPORT]
#   or dartheap.py OUT stream N TITLE_LEN (benchmarks: written as it goes, see stream()).
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


def stream(out, n, title_len):
    """The current layout's heap of main() with n screens, written as it goes (benchmarks:
    millions of objects without holding them), titles of title_len Latin-1 units (<= 128,
    what the VM's writer keeps). Same classes, object order, references and sizes as main()
    writes for "new" except the titles' length."""
    classes = [("Root", "", {}), ("Read-Only Pages", "", {}),
               ("Isolate", "", {0: "_cache", 1: "_weak", 2: "_big"}),
               ("_GrowableList", "dart:core", {0: "_typeArguments", 1: "_length", 2: "_data"}),
               ("_List", "dart:core", {}), ("_OneByteString", "dart:core", {}),
               ("_Smi", "dart:core", {}),
               ("CheckoutPageState", "package:shop/checkout.dart",
                {0: "_widget", 1: "_element", 2: "_controller"}),
               ("StatefulElement", "package:flutter/src/widgets/framework.dart",
                {0: "_state", 1: "_parent", 2: "_widget"}),
               ("CheckoutPage", "package:shop/checkout.dart", {0: "title"}),
               ("TextEditingController", "package:flutter/src/widgets/editable_text.dart",
                {0: "_listeners", 1: "_value"}),
               ("_Closure", "dart:core", {0: "_context", 1: "_function"}),
               ("_WeakReferenceImpl", "dart:core", {0: "_target"}),
               ("_Mint", "dart:core", {}), ("_Double", "dart:core", {})]
    cid = {name: i + 1 for i, (name, _, _) in enumerate(classes)}
    n_objs = 6 + 7 * n + 4
    # references: root 3, iso 3, glist 3, backing n, per screen 1+3+3+2+1+2, weak 1
    n_refs = 3 + 3 + 3 + n + 12 * n + 1
    f = open(out, "wb")
    b = bytearray(b"dartheap")
    b += uleb(0) + s("main") + uleb(1 << 20) + uleb(2 << 20) + uleb(4096)
    b += uleb(len(classes))
    for name, lib, fields in classes:
        b += uleb(0) + s(name) + s(lib.split("/")[-1]) + s(lib) + s("")
        b += uleb(len(fields))
        for ix in sorted(fields, reverse=True):
            b += uleb(1) + uleb(ix) + s(fields[ix]) + s("")
    b += uleb(n_refs) + uleb(n_objs)

    def o(cls, size, data, refs):
        b.extend(uleb(cid[cls]) + uleb(size) + data + uleb(len(refs)))
        for r in refs:
            b.extend(uleb(r))

    lonely, weak, big, dbl = 7 + 7 * n, 8 + 7 * n, 9 + 7 * n, 10 + 7 * n
    o("Root", 0, b"\x00", [2, 3, dbl])
    o("Read-Only Pages", 0, b"\x00", [])
    o("Isolate", 0, b"\x00", [4, weak, big])
    o("_GrowableList", 32, b"\x07" + uleb(n), [0, 6, 5])
    o("_List", 16 + 8 * n, b"\x07" + uleb(n), [7 + 7 * i + 2 for i in range(n)])
    o("_Smi", 0, b"\x03" + uleb(n), [])
    title = b"\x05" + uleb(title_len) + uleb(title_len) + (b"checkout" * 16)[:title_len]
    for i in range(n):
        t = 7 + 7 * i  # title, widget, state, element, closure, listeners, controller
        o("_OneByteString", 24 + title_len, title, [])
        o("CheckoutPage", 16, b"\x00", [t])
        o("CheckoutPageState", 48, b"\x00", [t + 1, t + 3, t + 6])
        o("StatefulElement", 64, b"\x00", [t + 2, 0, t + 1])
        o("_Closure", 32, b"\x00", [t + 2, 0])
        o("_List", 24, b"\x07" + uleb(1), [t + 4])
        o("TextEditingController", 40, b"\x00", [t + 5, 0])
        if len(b) > 1 << 22:
            f.write(b)
            b.clear()
    o("CheckoutPage", 16, b"\x00", [])
    o("_WeakReferenceImpl", 16, b"\x00", [lonely])
    o("_Mint", 16, b"\x03" + sleb(-(1 << 62)), [])
    o("_Double", 16, b"\x04" + struct.pack("<d", 2.5), [])
    b += uleb(1) + uleb(5) + uleb(4096) + s("Unknown native function")
    for i in range(n_objs):
        b += uleb((i * 2654435761) & 0x7FFFFFFF)
        if len(b) > 1 << 22:
            f.write(b)
            b.clear()
    f.write(b)
    f.close()


def main():
    if sys.argv[2] == "stream":  # dartheap.py OUT stream N TITLE_LEN
        stream(sys.argv[1], int(sys.argv[3]), int(sys.argv[4]))
        return
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
