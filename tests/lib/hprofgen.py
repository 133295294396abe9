# SPDX-License-Identifier: Apache-2.0
"""hprofgen: small HPROF files (8-byte ids, JAVA PROFILE 1.0.2) written record by record, for
tests that need a heap shape no JVM writes on demand (a JDK 6 pending list, constant pool
entries, an unrooted boot class). Import with PYTHONPATH=$LEAKRAY_SRC/tests/lib.

Names are string ids the caller picks (`Strings.sid` hands them out in order); object
fields and statics are all object-typed (type 2), which is what the reference tests need."""
import struct


def u1(v): return struct.pack(">B", v)
def u2(v): return struct.pack(">H", v)
def u4(v): return struct.pack(">I", v)
def i8(v): return struct.pack(">Q", v)


def rec(tag, body):
    """A top-level record: tag, time delta 0, body length, body."""
    return u1(tag) + u4(0) + u4(len(body)) + body


def header(millis=1700000000000):
    return b"JAVA PROFILE 1.0.2\0" + u4(8) + i8(millis)


def utf8(sid, s): return rec(0x01, i8(sid) + s.encode())
def load(serial, cid, name_sid): return rec(0x02, u4(serial) + i8(cid) + u4(0) + i8(name_sid))


def class_dump(cid, sup, size, loader=0, fields=(), statics=(), cpool=()):
    """CLASS_DUMP sub-record: `fields` are name ids, `statics` (name id, object id) pairs,
    `cpool` (index, basic type, value bytes) triples."""
    b = u1(0x20) + i8(cid) + u4(0) + i8(sup) + i8(loader) + i8(0) * 4 + u4(size)
    b += u2(len(cpool)) + b"".join(u2(i) + u1(t) + v for i, t, v in cpool)
    b += u2(len(statics)) + b"".join(i8(n) + u1(2) + i8(v) for n, v in statics)
    return b + u2(len(fields)) + b"".join(i8(n) + u1(2) for n in fields)


def instance(oid, cid, refs):
    return u1(0x21) + i8(oid) + u4(0) + i8(cid) + u4(8 * len(refs)) + b"".join(map(i8, refs))


def byte_array(oid, n): return u1(0x23) + i8(oid) + u4(0) + u4(n) + u1(8) + bytes(n)
def sticky_class(cid): return u1(0x05) + i8(cid)
def jni_global(oid, ref): return u1(0x01) + i8(oid) + i8(ref)


class Strings:
    """String ids in first-use order, written as UTF8 records by `records`."""

    def __init__(self):
        self.ids = {}

    def sid(self, s):
        return self.ids.setdefault(s, len(self.ids) + 1)

    def records(self):
        return b"".join(utf8(i, s) for s, i in self.ids.items())


def dump(strings, loads, segment):
    """The whole file: header, strings, LOAD_CLASS records, one heap dump segment, its end."""
    return header() + strings + loads + rec(0x0C, segment) + rec(0x2C, b"")
