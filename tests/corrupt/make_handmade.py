#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# make_handmade.py: writes the small hand-made HPROF files of tests/corrupt/handmade/, each a
# minimal dump with one deliberate defect (or none, for the controls). The files are
# committed; this script documents exactly which bytes are wrong and regenerates them.
# tests/corrupt/handmade.sh runs `leakray info` on each and compares the exit code and the
# first stderr line with NAME.expected.
# usage: make_handmade.py OUTDIR
import os
import struct
import sys

IDS = 8
T_OBJ, T_BOOL, T_INT, T_LONG = 2, 4, 10, 11


def u1(v):
    return struct.pack(">B", v)


def u2(v):
    return struct.pack(">H", v)


def u4(v):
    return struct.pack(">I", v & 0xFFFFFFFF)


def oid(v):
    return struct.pack(">Q", v)


def header(version=b"JAVA PROFILE 1.0.2", ids=IDS):
    return version + b"\0" + u4(ids) + struct.pack(">Q", 1_700_000_000_000)


def rec(tag, body, length=None):
    return u1(tag) + u4(0) + u4(len(body) if length is None else length) + body


def string(sid, text):
    return rec(0x01, oid(sid) + text.encode())


def load_class(serial, cid, name_sid):
    return rec(0x02, u4(serial) + oid(cid) + u4(0) + oid(name_sid))


def class_dump(cid, sup, inst_size, fields=(), statics=(), cpool=b"\0\0"):
    b = u1(0x20) + oid(cid) + u4(0) + oid(sup) + oid(0) * 5 + u4(inst_size) + cpool
    b += u2(len(statics))
    for name, typ, val in statics:
        b += oid(name) + u1(typ) + val
    b += u2(len(fields))
    for name, typ in fields:
        b += oid(name) + u1(typ)
    return b


def instance(obj, cid, data):
    return u1(0x21) + oid(obj) + u4(0) + oid(cid) + u4(len(data)) + data


def segment(body, length=None):
    return rec(0x1C, body, length)


END = rec(0x2C, b"")

# Ids: strings 1.., classes 0x100.., objects 0x1000..
NAMES = string(1, "java/lang/Object") + string(2, "Foo") + string(3, "x") + string(4, "next")
LOADS = load_class(1, 0x100, 1) + load_class(2, 0x200, 2)
CLASSES = class_dump(0x100, 0, 0) + class_dump(0x200, 0x100, 12, [(3, T_INT), (4, T_OBJ)])


def foo(obj, x, nxt):
    return instance(obj, 0x200, u4(x) + oid(nxt))


ROOTS = u1(0x05) + oid(0x200) + u1(0x01) + oid(0x1000) + oid(0x1)
FOOS = foo(0x1000, 1, 0x1010) + foo(0x1010, 2, 0x1020) + foo(0x1020, 3, 0)
VALID = header() + NAMES + LOADS + segment(ROOTS + CLASSES + FOOS) + END


def cases():
    yield "valid-minimal", VALID
    # Anomalies real dumps contain: counted, not fatal.
    yield "valid-missing-class", (header() + NAMES + LOADS + segment(
        ROOTS + CLASSES + FOOS + instance(0x1030, 0x999, b"")) + END)
    yield "valid-dangling-root", (header() + NAMES + LOADS + segment(
        ROOTS + u1(0xFF) + oid(0xDEAD0) + CLASSES + FOOS) + END)
    yield "empty", b""
    yield "not-hprof", b"hello, this is not a heap dump\n"
    yield "bad-version", header(b"JAVA PROFILE 2.0") + NAMES
    yield "header-no-nul", b"JAVA PROFILE 1.0.2" + b"x" * 64
    yield "idsize-5", header(ids=5) + NAMES
    # A STRING record that claims 100 bytes where the file has 12.
    yield "record-past-end", header() + rec(0x01, oid(9) + b"abcd", length=100)
    # The segment says 40 bytes but its instance runs on past them into the next record.
    body = ROOTS + CLASSES + FOOS
    yield "instance-crosses-segment", (header() + NAMES + LOADS +
                                       segment(body, length=len(body) - 5) + END)
    # 0x20000000 references of 8 bytes = 4 GiB: wraps to 0 in 32-bit arithmetic.
    yield "obj-array-overflow", (header() + NAMES + LOADS + segment(
        ROOTS + CLASSES + u1(0x22) + oid(0x2000) + u4(0) + u4(0x20000000) + oid(0x100)) + END)
    # 0x20000000 longs = 4 GiB, same wrap for primitive arrays.
    yield "prim-array-overflow", (header() + NAMES + LOADS + segment(
        ROOTS + CLASSES + u1(0x23) + oid(0x2000) + u4(0) + u4(0x20000000) + u1(T_LONG)) + END)
    # Constant-pool entry of type 3 (no such basic type): its size is unknown.
    yield "cpool-bad-type", (header() + NAMES + LOADS + segment(
        class_dump(0x300, 0x100, 0, cpool=u2(1) + u2(0) + u1(3) + u4(7)) + CLASSES + FOOS) + END)
    # An instance whose field bytes are fewer than its class declares (12).
    yield "instance-short-fields", (header() + NAMES + LOADS + segment(
        ROOTS + CLASSES + instance(0x1000, 0x200, u4(1))) + END)
    # Three stray bytes after the last record: a record header cut short.
    yield "trailing-partial-record", VALID + b"\x01\x00\x00"
    # A class name with an escape sequence and a newline: loads, printed as '?' (control
    # characters never occur in JVM names; tests/corrupt/control_names.sh checks the output).
    yield "valid-control-name", (header() + string(1, "java/lang/Object") +
                                 string(2, "Fo\x1b[31mo\nBar") + string(3, "x") +
                                 string(4, "next") + LOADS + segment(ROOTS + CLASSES + FOOS) + END)
    # Two classes each naming the other as superclass.
    yield "super-cycle", (header() + NAMES + LOADS + segment(
        CLASSES + class_dump(0x300, 0x400, 0) + class_dump(0x400, 0x300, 0)) + END)
    # 1100 classes in one superclass chain: deeper than the reader's cap (1024), which keeps
    # the per-class chain walks linear.
    chain = b"".join(class_dump(0x10000 + i, 0x10000 + i - 1 if i else 0x100, 0)
                     for i in range(1100))
    yield "super-too-deep", header() + NAMES + LOADS + segment(CLASSES + chain) + END


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "handmade"
    os.makedirs(out, exist_ok=True)
    for name, data in cases():
        with open(os.path.join(out, name + ".hprof"), "wb") as f:
            f.write(data)
    return 0


if __name__ == "__main__":
    sys.exit(main())
