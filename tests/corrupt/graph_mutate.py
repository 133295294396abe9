#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# graph_mutate.py: writes a bounded, deterministic set of damaged copies of a heap graph in
# one of the formats other than HPROF, for tests/corrupt/graph_mutations.sh:
#   v8     .heapsnapshot (V8, Node, ArkTS; .gz accepted: the text is damaged, then some
#          copies are compressed again, and the compressed stream itself is cut and flipped)
#   ruby   ObjectSpace.dump_all JSON lines
#   gtext  leakray's generic JSON-lines graph
#   nscan  native scan reports (.lrn) with block lines
#   dart   Dart VM heap snapshots (binary, LEB128)
# Damage: cuts at many offsets (inside strings, numbers, arrays, the header or meta), seeded
# bit flips and byte substitutions, numbers made hostile (huge, 2^32 and 2^64 edges,
# negative, fractional, counts one off), nesting bombs, duplicated keys and records, wrong
# V8 meta (field lists of the wrong shape), bad escapes, empty and header-only files.
# usage: graph_mutate.py gen KIND FILE OUTDIR TAG [SCALE [SEED [LIMIT]]]
#   prints TSV lines: name expect path id verb what
#   expect is "3" (must be rejected as bad input) or "0|3" (the damage may leave a valid
#   input); id names an object of the undamaged input, for the verbs that take one; verb is
#   the verb a case needs ("show" for allocation traces) or "-" (any).
#   SCALE multiplies the number of random cases (1: the committed test; larger: sweeps);
#   LIMIT > 0 keeps a seeded subset of that many cases (the committed test's time budget).
# usage: graph_mutate.py ruby-sample OUT  (a small Ruby dump with every record shape)
# usage: graph_mutate.py v8-traces IN OUT  (IN with allocation traces added)
# usage: graph_mutate.py escapes KIND IN OUT  (IN with terminal escapes in every text)
import gzip
import json
import os
import random
import re
import struct
import sys

TOKEN = re.compile(rb'"(?:[^"\\\n]|\\.)*"|-?[0-9]+(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?')
HOSTILE_NUMBERS = [
    b"4294967295", b"4294967296", b"2147483647", b"2147483648", b"-1", b"-2147483649",
    b"18446744073709551615", b"18446744073709551616", b"999999999999999999999999999999",
    b"1e308", b"1.5", b"-0", b"0", b"00012", b"9223372036854775807", b"65536",
]
BOMB_DEPTH = 100000


class Cases:
    def __init__(self, outdir, tag, ext, ident, gz_ratio=0):
        self.outdir, self.tag, self.ext, self.ident = outdir, tag, ext, ident
        self.rows = []
        self.gz_ratio = gz_ratio  # every gz_ratio-th case is written compressed again

    def emit(self, name, expect, data, what, gz=None, verb="-", ident=None):
        if gz is None:
            gz = self.gz_ratio and len(self.rows) % self.gz_ratio == 0
        ext = self.ext + (".gz" if gz else "")
        p = os.path.join(self.outdir, f"{self.tag}-{name}{ext}")
        with open(p, "wb") as f:
            f.write(gzip.compress(bytes(data), 6, mtime=0) if gz else bytes(data))
        self.rows.append((f"{self.tag}-{name}", expect, p, ident or self.ident, verb, what))


def tokens(data, lo=0, hi=None):
    """(start, end, is_string) of each JSON string and number token in data[lo:hi]."""
    return [(m.start(), m.end(), data[m.start()] == 0x22)
            for m in TOKEN.finditer(data, lo, len(data) if hi is None else hi)]


def edit(data, a, b, new):
    return data[:a] + new + data[b:]


def common_text(c, data, rnd, scale, protect=0):
    """Damage that makes sense for every text format: cuts, flips, substitutions, hostile
    numbers, bad escapes. protect: bytes of header not flipped at random."""
    n = len(data)
    toks = tokens(data)
    strs = [t for t in toks if t[2] and t[1] - t[0] > 2]
    nums = [t for t in toks if not t[2]]
    c.emit("empty", "3", b"", "empty file")
    c.emit("blank", "3", b"\n\n  \n", "blank lines only")
    cuts = sorted(set([1, 2, 8, min(n - 1, protect + 3), n // 3, n // 2, n - 2, n - 1]))
    for at in cuts:
        if 0 < at < n:
            c.emit(f"cut{at}", "0|3", data[:at], f"file cut at byte {at}")
    for k in range(2 * scale):
        if strs:
            a, b, _ = strs[rnd.randrange(len(strs))]
            at = a + 1 + rnd.randrange(b - a - 2)
            c.emit(f"cutstr{k}", "0|3", data[:at], f"cut inside the string at {a}")
        if nums:
            a, b, _ = nums[rnd.randrange(len(nums))]
            if b - a >= 2:
                at = a + 1 + rnd.randrange(b - a - 1)
                c.emit(f"cutnum{k}", "0|3", data[:at], f"cut inside the number at {a}")
    for k in range(6 * scale):
        buf = bytearray(data)
        spots = []
        for _ in range(1 + k % 5):
            at = rnd.randrange(min(protect, n - 1), n)
            buf[at] ^= 1 << rnd.randrange(8)
            spots.append(at)
        c.emit(f"flip{k}", "0|3", buf, "bits flipped at " + ",".join(map(str, spots)))
    specials = b'"\\[]{},:\n\x00\xff-0e.u '
    for k in range(4 * scale):
        buf = bytearray(data)
        at = rnd.randrange(min(protect, n - 1), n)
        buf[at] = specials[rnd.randrange(len(specials))]
        c.emit(f"subst{k}", "0|3", buf, f"byte {at} replaced by 0x{buf[at]:02x}")
    for k in range(5 * scale):
        if not nums:
            break
        a, b, _ = nums[rnd.randrange(len(nums))]
        v = HOSTILE_NUMBERS[(k + rnd.randrange(3)) % len(HOSTILE_NUMBERS)]
        c.emit(f"num{k}", "0|3", edit(data, a, b, v),
               f"number {data[a:b].decode()} at {a} -> {v.decode()}")
    for k, esc in enumerate([rb"\u", rb"\uD800", rb"\udc00\ud800", rb"\x", rb"\u12G4",
                             b"\xc3", b"\xed\xa0\x80", b"\x00", rb"\uDBFF\uDFFF"]):
        if not strs:
            break
        a, b, _ = strs[rnd.randrange(len(strs))]
        c.emit(f"esc{k}", "0|3", edit(data, b - 1, b - 1, esc),
               f"string at {a} ends with {esc!r}")
    return toks


def nest_bomb(depth, kind):
    if kind == "array":
        return b"[" * depth + b"]" * depth
    if kind == "object":
        return b'{"a":' * depth + b"1" + b"}" * depth
    return b"[" * depth  # unbalanced


# ---------------------------------------------------------------- V8 -----------------------
def bracket_end(data, p, limit):
    """End (one past) of the JSON array or object opening at p, brackets matched outside
    strings; None when it does not close before limit."""
    depth, q, in_str = 0, p, False
    while q < limit:
        ch = data[q]
        if in_str:
            if ch == 0x5C:
                q += 1
            elif ch == 0x22:
                in_str = False
        elif ch == 0x22:
            in_str = True
        elif ch in b"[{":
            depth += 1
        elif ch in b"]}":
            depth -= 1
            if depth == 0:
                return q + 1
        q += 1
    return None


def v8_value_span(data, key):
    """(start, end) of the JSON value after the first "key": (objects/arrays matched by
    brackets outside strings, scalars up to , } ])."""
    m = re.search(b'"' + re.escape(key) + rb'"\s*:', data)
    if not m:
        return None
    p = m.end()
    while data[p] in b" \n\r\t":
        p += 1
    if data[p] in b"[{":
        q = bracket_end(data, p, len(data))
        return None if q is None else (p, q)
    q = p
    while q < len(data) and data[q] not in b",}]":
        q += 1
    return p, q


def gen_v8(c, data, rnd, scale):
    snap = json.loads(data)
    meta = snap["snapshot"]["meta"]
    nf, ef = len(meta["node_fields"]), len(meta["edge_fields"])
    nodes = v8_value_span(data, b"nodes")
    edges = v8_value_span(data, b"edges")
    strings = v8_value_span(data, b"strings")
    mspan = v8_value_span(data, b"meta")
    common_text(c, data, rnd, scale, protect=0)
    # Cuts in the meta, at the arrays' starts and in their middles.
    for name, at in [("meta", mspan[0] + (mspan[1] - mspan[0]) // 2), ("nodes", nodes[0] + 1),
                     ("nodes-mid", (nodes[0] + nodes[1]) // 2), ("edges", edges[0] + 1),
                     ("edges-mid", (edges[0] + edges[1]) // 2), ("strings", strings[0] + 1),
                     ("strings-mid", (strings[0] + strings[1]) // 2)]:
        c.emit(f"cut-{name}", "3", data[:at], f"cut in {name} at {at}")
    # Counts in the header.
    for key in (b"node_count", b"edge_count", b"trace_function_count"):
        sp = v8_value_span(data, key)
        if not sp:
            continue
        old = int(data[sp[0]:sp[1]])
        for k, v in enumerate((old + 1, old - 1, 0, 2**31 - 1, 2**32 + old, 2**64 - 1, -1)):
            # trace_function_count only sizes an array the reader may not read.
            c.emit(f"{key.decode()}-{k}", "0|3" if v == old or key == b"trace_function_count" else "3",
                   edit(data, sp[0], sp[1], str(v).encode()), f"{key.decode()} {old} -> {v}")
    # extra_native_bytes (in Chrome's and Node 24's headers; added where absent): DevTools'
    # total adds it, so histo prints it summed; 19 digits is the most a number may have.
    sp = v8_value_span(data, b"extra_native_bytes")
    if not sp:
        at = v8_value_span(data, b"edge_count")[1]
        data_x, sp = edit(data, at, at, b',"extra_native_bytes":0'), None
    else:
        data_x = data
    sp = sp or v8_value_span(data_x, b"extra_native_bytes")
    for k, v in enumerate((b"9999999999999999999", b"18446744073709551615", b"-1", b"1.5",
                           b'"x"', b"[1]", b"null")):
        c.emit(f"extra_native_bytes-{k}", "0|3", edit(data_x, sp[0], sp[1], v),
               f"extra_native_bytes {v.decode()}", verb="histo" if k < 2 else "-")
    # Node and edge fields made hostile, by field name.
    ntok = [t for t in tokens(data, nodes[0], nodes[1]) if not t[2]]
    etok = [t for t in tokens(data, edges[0], edges[1]) if not t[2]]
    n_nodes, n_strings = len(ntok) // max(nf, 1), len(snap["strings"])
    values = {
        "type": [len(meta["node_types"][0]), 255, 2**32 - 1, -1],
        "name": [n_strings, n_strings + 1000, 2**32, -3],
        "id": [2**53 + 1, 2**64, 0, -1],
        "self_size": [2**63, 2**64 + 5, -100, 1.5],
        "edge_count": [len(etok) // ef + 1, 2**31, 2**32 + 1, -1],
        "trace_node_id": [2**40, -1],
        "detachedness": [7, 2**32],
        "name_or_index": [n_strings + 7, 2**32 - 1, -1],
        "to_node": [n_nodes * nf, n_nodes * nf + 1, 1, 2**32 - nf, -nf],
    }
    for arr, fields, toks in (("nodes", meta["node_fields"], ntok),
                              ("edges", meta["edge_fields"], etok)):
        for fi, f in enumerate(fields):
            vals = values.get(f, [2**32, -1])
            if f == "type" and arr == "edges":
                vals = [len(meta["edge_types"][0]), 2**32 + 1, -1]
            for k, v in enumerate(vals[:1 + scale]):
                cand = [t for i, t in enumerate(toks) if i % len(fields) == fi]
                if not cand:
                    continue
                a, b, _ = cand[rnd.randrange(len(cand))]
                c.emit(f"{arr}-{f}-{k}", "0|3", edit(data, a, b, str(v).encode()),
                       f"{arr} field {f} at {a}: {data[a:b].decode()} -> {v}")
    # One element too many or too few in an array.
    c.emit("nodes-extra", "3", edit(data, nodes[1] - 1, nodes[1] - 1, b",0"), "one number past the nodes")
    c.emit("edges-extra", "3", edit(data, edges[1] - 1, edges[1] - 1, b",0"), "one number past the edges")
    if ntok:
        a = ntok[-1][0]
        c.emit("nodes-short", "3", edit(data, a - 1, ntok[-1][1], b""), "last node number removed")
    c.emit("nodes-empty", "3", edit(data, nodes[0], nodes[1], b"[]"), "empty nodes")
    c.emit("strings-empty", "0|3", edit(data, strings[0], strings[1], b"[]"), "empty strings")
    c.emit("strings-number", "3", edit(data, strings[0], strings[1], b"[1,2]"), "numbers as strings")
    c.emit("nodes-strings", "3", edit(data, nodes[0], nodes[1], b'["a","b"]'), "strings as nodes")
    c.emit("nodes-null", "3", edit(data, nodes[0], nodes[1], b"null"), "nodes null")
    c.emit("nodes-object", "3", edit(data, nodes[0], nodes[1], b"{}"), "nodes object")
    # Wrong meta shapes.
    metas = {
        "node-fields-empty": ("node_fields", []),
        "node-fields-one": ("node_fields", ["type"]),
        "node-fields-no-edge-count": ("node_fields", [f for f in meta["node_fields"] if f != "edge_count"]),
        "node-fields-many": ("node_fields", meta["node_fields"] + ["x%d" % i for i in range(2000)]),
        "node-fields-numbers": ("node_fields", list(range(len(meta["node_fields"])))),
        "node-fields-dup": ("node_fields", meta["node_fields"] + ["edge_count"]),
        "edge-fields-empty": ("edge_fields", []),
        "edge-fields-no-to-node": ("edge_fields", ["type", "name_or_index"]),
        "edge-fields-dup": ("edge_fields", ["to_node", "to_node", "to_node"]),
        "node-types-empty": ("node_types", []),
        "node-types-flat": ("node_types", ["hidden", "object"]),
        "node-types-inner-empty": ("node_types", [[]] + meta["node_types"][1:]),
        "node-types-numbers": ("node_types", [[1, 2, 3]] + meta["node_types"][1:]),
        "edge-types-empty": ("edge_types", [[]]),
        "edge-types-null": ("edge_types", None),
        "node-fields-string": ("node_fields", "type"),
    }
    for name, (key, val) in metas.items():
        sp = v8_value_span(data, key.encode())
        if sp:
            c.emit(name, "0|3", edit(data, sp[0], sp[1], json.dumps(val).encode()),
                   f"meta {key} = {json.dumps(val)[:60]}")
    c.emit("meta-null", "3", edit(data, mspan[0], mspan[1], b"null"), "meta null")
    c.emit("meta-empty", "3", edit(data, mspan[0], mspan[1], b"{}"), "meta {}")
    # Duplicated keys.
    sp = v8_value_span(data, b"node_count")
    c.emit("dup-node-count", "0|3", edit(data, sp[0], sp[0], b'99999999,"node_count":'),
           "node_count given twice (first huge)")
    k = data.find(b'"nodes"')
    c.emit("dup-nodes", "0|3", edit(data, k, k, b'"nodes":[1,2,3],'), "nodes given twice")
    k = data.find(b'"strings"')
    c.emit("dup-strings", "0|3", edit(data, k, k, b'"strings":["x"],'), "strings given twice")
    k = data.find(b'"meta"')
    c.emit("dup-meta", "0|3", edit(data, k, k, b'"meta":{"node_fields":[]},'), "meta given twice")
    c.emit("dup-snapshot", "0|3", edit(data, 1, 1, b'"snapshot":{},'), "snapshot given twice")
    # Nesting bombs in places the reader skips or reads.
    for kind in ("array", "object", "open"):
        k = data.find(b'"nodes"')
        c.emit(f"bomb-{kind}-key", "0|3", edit(data, k, k, b'"extra":' + nest_bomb(BOMB_DEPTH, kind) + b","),
               f"{kind} nesting bomb under an unknown key")
        c.emit(f"bomb-{kind}-meta", "0|3",
               edit(data, mspan[0] + 1, mspan[0] + 1, b'"x":' + nest_bomb(BOMB_DEPTH, kind) + b","),
               f"{kind} nesting bomb inside meta")
        c.emit(f"bomb-{kind}-nodes", "3", edit(data, nodes[0] + 1, nodes[0] + 1, nest_bomb(BOMB_DEPTH, kind) + b","),
               f"{kind} nesting bomb as the first node number")
    # A long string and a long number.
    c.emit("long-string", "0|3", edit(data, strings[0] + 1, strings[0] + 1, b'"' + b"a" * 1000000 + b'",'),
           "a string of 1 MB first")
    c.emit("long-number", "0|3", edit(data, nodes[0] + 1, nodes[0] + 1, b"1" * 100000 + b","),
           "a number of 100000 digits first in nodes")
    c.emit("not-json", "3", b"{\"snapshot\":" + b"\x00" * 64, "header then NUL bytes")
    if snap.get("trace_tree"):
        gen_v8_traces(c, data, snap, rnd, scale)


def gen_v8_traces(c, data, snap, rnd, scale):
    """Damage to allocation traces, read by `show` on an object that has one."""
    meta = snap["snapshot"]["meta"]
    nf = len(meta["node_fields"])
    t = meta["node_fields"].index("trace_node_id")
    i = meta["node_fields"].index("id")
    nodes = snap["nodes"]
    deep = [k for k in range(len(nodes) // nf) if nodes[k * nf + t] == 3]
    ident = "@%d" % nodes[deep[0] * nf + i]
    tree = v8_value_span(data, b"trace_tree")
    infos = v8_value_span(data, b"trace_function_infos")
    tf = v8_value_span(data, b"trace_node_fields")
    ff = v8_value_span(data, b"trace_function_info_fields")
    depth = 200000
    chain = b"[0,0,0,0," + b"[1,0,1,1," * depth + b"[3,2,1,8,[]" + b"]" * (depth + 2)
    cases = [
        ("tree-deep", tree, chain, "a trace tree 200000 calls deep above the object's"),
        ("tree-outside-children", tree, b"[0,0,0,[1,0,1,16,[]],[]]", "a nested array outside children"),
        ("tree-unbalanced", tree, b"[0,0,0,0,[1,0,1,16,[]]", "one ] missing"),
        ("tree-extra-close", tree, b"[0,0,0,0,[]]]]", "two ] too many"),
        ("tree-empty", tree, b"[]", "an empty trace tree"),
        ("tree-flat", tree, b"[3,2,1,8,3,2,1,8]", "trace nodes side by side, no children"),
        ("tree-huge-ids", tree, b"[0,0,0,0,[99999999999999999999999,4294967295,1,1,[3,18446744073709551615,1,1,[]]]]",
         "trace ids and function indexes past 64 bits"),
        ("tree-negative", tree, b"[0,0,0,0,[-1,0,1,1,[]]]", "a negative trace id"),
        ("tree-string", tree, b'[0,0,0,0,["a"]]', "a string in the trace tree"),
        ("tree-bomb", tree, b"[" * 100000 + b"]" * 100000, "a nesting bomb as the trace tree"),
        ("tree-open-bomb", tree, b"[" * 100000, "an unclosed nesting bomb as the trace tree"),
        ("infos-negative", infos, b"[0,-1,2,3,4,5]", "a negative function name"),
        ("infos-past", infos, b"[0,4294967295,4294967295,1,2,3,1,99999,9,9,9,9,2,0,0,0,0,0]",
         "function names past the strings"),
        ("infos-cut", infos, b"[0,1,2]", "a cut function entry"),
        ("infos-empty", infos, b"[]", "no functions"),
        ("infos-string", infos, b'["a"]', "a string among the functions"),
        ("node-fields-empty", tf, b"[]", "trace_node_fields empty"),
        ("node-fields-children-first", tf, b'["children","id","function_info_index","count","size"]',
         "children as the first trace node field"),
        ("node-fields-one", tf, b'["id"]', "trace_node_fields without children"),
        ("node-fields-same", tf, b'["id","function_info_index","children"]', "three trace node fields"),
        ("node-fields-many", tf, json.dumps(["x%d" % k for k in range(70)] + ["id", "function_info_index", "children"]).encode(),
         "73 trace node fields"),
        ("fi-fields-empty", ff, b"[]", "trace_function_info_fields empty"),
        ("fi-fields-one", ff, b'["name"]', "one trace function field"),
    ]
    for name, span, new, what in cases:
        if span:
            c.emit("trace-" + name, "0|3", edit(data, span[0], span[1], new), what,
                   verb="show", ident=ident)


def v8_ident(data):
    snap = json.loads(data)
    meta = snap["snapshot"]["meta"]
    nf = len(meta["node_fields"])
    i = meta["node_fields"].index("id")
    nodes = snap["nodes"]
    return "@%d" % nodes[(len(nodes) // nf // 2) * nf + i]


def v8_traces(src, out):
    """src with allocation traces: three functions, a trace tree three calls deep, and the
    trace node of every other object (what `show` prints as the allocation stack)."""
    snap = json.loads(open(src, "rb").read())
    meta = snap["snapshot"]["meta"]
    meta["trace_function_info_fields"] = ["function_id", "name", "script_name", "script_id",
                                          "line", "column"]
    meta["trace_node_fields"] = ["id", "function_info_index", "count", "size", "children"]
    nf = len(meta["node_fields"])
    t = meta["node_fields"].index("trace_node_id")
    for i in range(0, len(snap["nodes"]) // nf, 2):
        snap["nodes"][i * nf + t] = 1 + i % 3
    s = snap["strings"]
    s += ["main", "makeCache", "app.js"]
    snap["trace_function_infos"] = [0, len(s) - 3, len(s) - 1, 7, 10, 2,
                                    1, len(s) - 2, len(s) - 1, 7, 20, 4,
                                    2, 1, len(s) - 1, 7, 30, 6]
    snap["snapshot"]["trace_function_count"] = 3
    snap["trace_tree"] = [0, 0, 0, 0, [1, 0, 1, 16, [2, 1, 2, 32, [3, 2, 1, 8, []]]]]
    with open(out, "w") as f:
        json.dump(snap, f, separators=(",", ":"))


# ---------------------------------------------------------------- JSON lines ---------------
def lines_of(data):
    out, p = [], 0
    while p < len(data):
        q = data.find(b"\n", p)
        q = len(data) if q < 0 else q + 1
        out.append((p, q))
        p = q
    return out


def gen_jsonl(c, data, rnd, scale, kind):
    lines = lines_of(data)
    head = lines[0][1] if kind == "gtext" else 0
    common_text(c, data, rnd, scale, protect=head)
    for k in range(2 * scale):
        a, b = lines[rnd.randrange(len(lines))]
        c.emit(f"cutline{k}", "0|3", data[:a + (b - a) // 2], f"cut in the middle of the line at {a}")
        c.emit(f"dropnl{k}", "0|3", edit(data, b - 1, b, b" "), f"newline at {b - 1} removed")
        c.emit(f"dupline{k}", "0|3", data[:b] + data[a:b] + data[b:], f"line at {a} given twice")
        c.emit(f"crlf{k}", "0|3", edit(data, b - 1, b, b"\r\n"), f"line at {a} ends in CR LF")
    c.emit("no-final-newline", "0|3", data.rstrip(b"\n"), "last newline removed")
    c.emit("only-first-line", "0|3", data[:lines[0][1]], "only the first line")
    # Duplicated keys and hostile values per line shape.
    key_re = re.compile(rb'"([a-z_]+)"\s*:\s*')
    for k in range(3 * scale):
        a, b = lines[rnd.randrange(len(lines))]
        m = list(key_re.finditer(data, a, b))
        if not m:
            continue
        mk = m[rnd.randrange(len(m))]
        dup = mk.group(0) + b'"0x1",'
        c.emit(f"dupkey{k}", "0|3", edit(data, mk.start(), mk.start(), dup),
               f"key {mk.group(1).decode()} given twice at {mk.start()}")
        val = [b'"0x' + b"f" * 20 + b'"', b'"0x"', b'""', b"null", b"true", b"[]", b"{}",
               b'"-1"', b"-1", b'"18446744073709551616"', b"1e400", b'"0x0"'][k % 12]
        end = mk.end()
        sp_end = v8_end_value(data, end, b)
        c.emit(f"val{k}", "0|3", edit(data, end, sp_end, val),
               f"value of {mk.group(1).decode()} at {end} -> {val.decode()}")
    for kind_b in ("array", "object", "open"):
        a, b = lines[min(1, len(lines) - 1)]
        m = list(key_re.finditer(data, a, b))
        if m:
            end = m[-1].end()
            c.emit(f"bomb-{kind_b}", "0|3",
                   edit(data, end, v8_end_value(data, end, b), nest_bomb(BOMB_DEPTH, kind_b)),
                   f"{kind_b} nesting bomb as the value at {end}")
        c.emit(f"bomb-{kind_b}-line", "0|3", data + nest_bomb(BOMB_DEPTH, kind_b) + b"\n",
               f"{kind_b} nesting bomb as a line of its own")
    c.emit("long-line", "0|3", data + b'{"x":"' + b"a" * 1000000 + b'"}\n', "a line of 1 MB")
    c.emit("nul-line", "0|3", data + b"\x00" * 100 + b"\n", "a line of NUL bytes")
    c.emit("many-keys", "0|3", data + b"{" + b",".join(b'"k%d":%d' % (i, i) for i in range(50000)) + b"}\n",
           "a line of 50000 keys")


def v8_end_value(data, p, limit):
    """End of the JSON value at p (within the line ending at limit)."""
    if p >= limit:
        return p
    if data[p] == 0x22:
        q = p + 1
        while q < limit and data[q] != 0x22:
            q += 2 if data[q] == 0x5C else 1
        return min(q + 1, limit)
    if data[p] in b"[{":
        q = bracket_end(data, p, limit)
        return limit if q is None else q
    q = p
    while q < limit and data[q] not in b",}]\n":
        q += 1
    return q


def gen_ruby(c, data, rnd, scale):
    gen_jsonl(c, data, rnd, scale, "ruby")
    lines = lines_of(data)
    addr = re.compile(rb'"0x[0-9a-f]+"')
    refs = [m for m in addr.finditer(data)]
    # References to themselves, to unknown addresses; a huge reference list.
    a, b = lines[-1]
    c.emit("refs-many", "0|3",
           data + b'{"address":"0x99", "type":"ARRAY", "references":[' +
           b",".join([b'"0x99"'] * 200000) + b'], "memsize":40}\n', "one object with 200000 references")
    c.emit("addr-overflow", "0|3", data + b'{"address":"0x1ffffffffffffffff", "type":"OBJECT", "memsize":1}\n',
           "address past 64 bits")
    c.emit("addr-dup", "0|3", data + data[lines[-1][0]:lines[-1][1]], "last object given twice")
    c.emit("root-only", "0|3", b'{"type":"ROOT", "root":"vm", "references":["0x10"]}\n', "only a root")
    c.emit("memsize-huge", "0|3", data + b'{"address":"0x98", "type":"STRING", "memsize":18446744073709551615}\n',
           "memsize 2^64-1")
    c.emit("memsize-neg", "0|3", data + b'{"address":"0x98", "type":"STRING", "memsize":-5}\n', "memsize -5")
    c.emit("line-huge", "0|3", data + b'{"address":"0x97", "type":"OBJECT", "line":99999999999999999999, "file":"a.rb"}\n',
           "allocation line past 64 bits")
    c.emit("type-missing", "0|3", data + b'{"address":"0x96", "memsize":8}\n', "object without a type")
    c.emit("address-number", "0|3", data + b'{"address":150, "type":"OBJECT"}\n', "address as a number")
    for k in range(scale):
        if refs:
            m = refs[rnd.randrange(len(refs))]
            c.emit(f"addr{k}", "0|3", edit(data, m.start(), m.end(), b'"0x"'), f"empty address at {m.start()}")


def gen_gtext(c, data, rnd, scale):
    gen_jsonl(c, data, rnd, scale, "gtext")
    lines = lines_of(data)
    body = data[lines[0][1]:]
    c.emit("header-only", "0|3", data[:lines[0][1]], "header line only")
    c.emit("no-header", "3", body, "no header line")
    c.emit("header-v2", "3", b'{"leakray_graph": 2}\n' + body, "header version 2")
    c.emit("header-huge", "3", b'{"leakray_graph": 18446744073709551617}\n' + body, "header version past 64 bits")
    c.emit("header-late", "3", body + data[:lines[0][1]], "header last")
    c.emit("class-dup", "3", data + b'{"class": 1, "name": "A"}\n{"class": 1, "name": "B"}\n', "class id twice")
    c.emit("self-edge", "0|3", data + b'{"node": 777, "size": 1}\n{"edge": [777, 777]}\n{"root": 777}\n', "a self edge")
    c.emit("edges-many", "0|3", data + b'{"node": 778, "size": 1}\n' + b'{"edge": [778, 778], "name": 1}\n' * 50000,
           "50000 edges of one node")
    c.emit("super-loop", "0|3", data + b'{"class": 900, "name": "A", "super": 901}\n{"class": 901, "name": "B", "super": 900}\n'
           b'{"node": 902, "class": 900}\n', "classes each other's super")
    c.emit("super-self", "0|3", data + b'{"class": 903, "name": "C", "super": 903}\n{"node": 904, "class": 903}\n',
           "a class its own super")
    c.emit("class-node-loop", "0|3", data + b'{"class": 905, "name": "D", "node": 906}\n{"node": 906, "class": 905, "kind": "class"}\n',
           "a class object of its own class")
    c.emit("edge-short", "3", data + b'{"edge": [1]}\n', "edge with one end")
    c.emit("edge-long", "3", data + b'{"edge": [1, 2, 3]}\n', "edge with three ends")
    c.emit("edge-name-huge", "0|3", data + b'{"edge": [1, 2], "name": 18446744073709551615}\n', "element index 2^64-1")
    c.emit("edge-name-neg", "0|3", data + b'{"edge": [1, 2], "name": -1}\n', "element index -1")
    c.emit("size-huge", "0|3", data + b'{"node": 779, "size": 18446744073709551615, "native": 18446744073709551615}\n'
           b'{"node": 780, "size": 18446744073709551615}\n{"edge": [779, 780]}\n{"root": 779}\n',
           "sizes 2^64-1 added up")
    c.emit("id-hex-long", "0|3", data + b'{"node": "0x1ffffffffffffffff"}\n', "hex id past 64 bits")
    c.emit("id-dec-long", "0|3", data + b'{"node": "99999999999999999999"}\n', "decimal id past 64 bits")
    c.emit("id-bad", "0|3", data + b'{"node": "0xg"}\n', "hex id with a bad digit")
    c.emit("kind-bad", "3", data + b'{"node": 781, "kind": "nonsense"}\n', "unknown node kind")
    c.emit("unknown-record", "0|3", data + b'{"nonsense": 1}\n', "unknown record")
    c.emit("not-object", "3", data + b'[1, 2]\n', "a line that is an array")


def gtext_ident(data):
    """The id of the first node record, as the verbs take it."""
    for line in data.split(b"\n")[1:]:
        rec = json.loads(line) if line.strip() else {}
        if "node" in rec:
            v = rec["node"]
            return v if isinstance(v, str) and v.startswith("0x") else "@%s" % v
    return "@1"


def ruby_sample(out):
    """A small Ruby dump with every record shape the reader knows."""
    lines = [
        {"type": "ROOT", "root": "vm", "references": ["0x1000", "0x1010"]},
        {"type": "ROOT", "root": "machine_context", "references": ["0x2000"]},
        {"type": "ROOT", "root": "global_tbl", "references": ["0x2010"]},
        {"address": "0x1000", "type": "CLASS", "class": "0x1008", "name": "Cache",
         "references": ["0x2000"], "memsize": 520},
        {"address": "0x1008", "type": "CLASS", "class": "0x1008", "name": "Class",
         "references": [], "memsize": 400},
        {"address": "0x1010", "type": "MODULE", "class": "0x1008", "name": "Kernel",
         "references": [], "memsize": 300},
        {"address": "0x1018", "type": "ICLASS", "class": "0x1010", "references": [], "memsize": 40},
    ]
    for i in range(40):
        a = 0x2000 + 16 * i
        refs = ["0x%x" % (a + 16)] if i < 39 else ["0x2000"]
        rec = {"address": "0x%x" % a, "type": ["OBJECT", "HASH", "ARRAY", "STRING", "DATA",
                                               "IMEMO"][i % 6],
               "class": "0x1000", "references": refs, "memsize": 40 + i,
               "file": "app/cache.rb", "line": 10 + i, "method": "new"}
        if i % 6 == 3:
            rec["value"] = "k\u00e9y %d\n" % i
            # its length in bytes, but for one string, whose value the reader must drop
            rec["bytesize"] = len(rec["value"].encode()) - (i == 3)
        if i % 6 == 5:
            rec["imemo_type"] = "callcache"
        lines.append(rec)
    with open(out, "w") as f:
        for r in lines:
            f.write(json.dumps(r, separators=(", ", ":")) + "\n")


# ---------------------------------------------------------------- native scans -------------
def gen_nscan(c, data, rnd, scale):
    lines = lines_of(data)
    common_text(c, data, rnd, scale, protect=lines[0][1])
    blocks = [(a, b) for a, b in lines if data.startswith(b"block ", a)]
    kw = {}
    for a, b in lines:
        kw.setdefault(data[a:b].split(b" ")[0].strip(), []).append((a, b))
    c.emit("magic-only", "3", data[:lines[0][1]], "first line only")
    c.emit("no-end", "3", data[:kw[b"end"][0][0]] if b"end" in kw else data[:-4], "no end line")
    c.emit("after-end", "0|3", data + b"block 0x10 8 0 0\n", "a block after the end line")
    c.emit("unknown-kw", "3", edit(data, lines[1][0], lines[1][0], b"bogus 1\n"), "unknown keyword")
    c.emit("version-9", "3", b"leakray-native 9\n" + data[lines[0][1]:], "version 9")
    fields = re.compile(rb"[^ \n]+")
    for k in range(6 * scale):
        a, b = lines[1 + rnd.randrange(len(lines) - 1)]
        fs = list(fields.finditer(data, a, b))
        if len(fs) < 2:
            continue
        f = fs[1 + rnd.randrange(len(fs) - 1)]
        v = [b"0x1ffffffffffffffff", b"18446744073709551616", b"-1", b"0x", b"4294967295",
             b"0xffffffffffffffff", b"", b"1:", b":0x10", b"99999999999999999999"][k % 10]
        c.emit(f"field{k}", "0|3", edit(data, f.start(), f.end(), v),
               f"field {data[f.start():f.end()].decode(errors='replace')[:30]} at {f.start()} -> {v.decode()}")
    for k in range(2 * scale):
        a, b = lines[1 + rnd.randrange(len(lines) - 1)]
        c.emit(f"dupline{k}", "0|3", data[:b] + data[a:b] + data[b:], f"line at {a} given twice")
        c.emit(f"tabs{k}", "0|3", data[:a] + data[a:b].replace(b" ", b"\t") + data[b:], f"tabs in line at {a}")
        c.emit(f"extra{k}", "0|3", edit(data, b - 1, b - 1, b" 7"), f"extra field in line at {a}")
    if blocks:
        a, b = blocks[0]
        st = b"3" if data.startswith(b"leakray-native 1") else b"4"  # a root's state
        head = data[:blocks[0][0]]
        tail = data[blocks[0][0]:]
        c.emit("block-many-ptrs", "0|3",
               head + b"block 0x10 8 0 " + st + b" 0:0x10" * 100000 + b"\n" + tail, "a block with 100000 pointers")
        c.emit("block-self", "0|3", head + b"block 0x10 8 0 " + st + b" 0:0x10\n" + tail, "a block pointing at itself")
        c.emit("block-dup", "0|3", head + data[a:b] + tail, "first block given twice")
        c.emit("block-size-huge", "0|3", head + b"block 0x10 18446744073709551615 0 " + st + b"\nblock 0x20 18446744073709551615 0 2 0:0x10\n" + tail,
               "blocks of 2^64-1 bytes")
        c.emit("block-size-tib", "0|3", head + b"block 0x10 1099511627776 0 " + st + b" 0:0x20\nblock 0x20 1099511627776 0 2 0:0x10\n" + tail,
               "two blocks of 1 TiB in a cycle")
        c.emit("block-state-bad", "0|3", head + b"block 0x10 8 0 77\n" + tail, "block state 77")
        c.emit("block-trace-huge", "0|3", head + b"block 0x10 8 4294967295 1\n" + tail, "block trace 2^32-1")
        c.emit("block-ptr-far", "0|3", head + b"block 0x10 8 0 " + st + b" 18446744073709551615:0x20\n" + tail,
               "pointer offset 2^64-1")
        c.emit("blocks-many", "0|3", head + b"".join(b"block 0x%x 8 0 %s 0:0x%x\n" % (16 * i + 16, st, 16 * i) for i in range(60000)) + tail,
               "60000 blocks in a chain")
    c.emit("trace-long", "0|3", edit(data, lines[1][0], lines[1][0], b"trace 9" + b" 0x401000" * 100000 + b"\n"),
           "a trace of 100000 frames")
    c.emit("map-dev-zero", "0|3", edit(data, lines[1][0], lines[1][0], b"map 0x400000 0x500000 r-xp 0x0 /dev/zero\n"),
           "a mapping of /dev/zero")
    c.emit("map-dir", "0|3", edit(data, lines[1][0], lines[1][0], b"map 0x400000 0x500000 r-xp 0x0 /\n"),
           "a mapping of a directory")
    c.emit("map-reversed", "0|3", edit(data, lines[1][0], lines[1][0], b"map 0x500000 0x400000 r-xp 0x0 /bin/sh\n"),
           "a mapping that ends before it starts")
    c.emit("leak-trace-unknown", "0|3", edit(data, lines[1][0], lines[1][0], b"leak direct 4242 1 32 0x10 -\n"),
           "a leak with an unknown trace")
    c.emit("leak-hex-long", "0|3", edit(data, lines[1][0], lines[1][0], b"leak direct 0 1 32 0x10 " + b"ab" * 5000 + b"\n"),
           "a leak with 5000 bytes of contents")


# ---------------------------------------------------------------- Dart ---------------------
class DartWalk:
    """Offsets of the LEB128 fields of a dartheap snapshot: (offset, end, name, value)."""

    def __init__(self, d):
        self.d, self.p, self.f = d, 8, []
        self.leb("flags")
        self.string("isolate name")
        for n in ("heap size", "capacity", "external"):
            self.leb(n)
        nc = self.leb("class count")
        for _ in range(nc):
            self.leb("class flags")
            for n in ("class name", "library name", "library uri", "class reserved"):
                self.string(n)
            nf = self.leb("field count")
            for _ in range(nf):
                self.leb("field flags")
                self.leb("field index")
                self.string("field name")
                self.string("field reserved")
        self.leb("reference count")
        no = self.leb("object count")
        self.objects = []
        for _ in range(no):
            self.objects.append(self.p)
            self.leb("object class")
            self.leb("shallow size")
            tag = self.leb("data tag")
            if tag in (2, 3, 7):
                self.leb("data")
            elif tag == 4:
                self.p += 8
            elif tag in (5, 6):
                self.leb("string length")
                t = self.leb("truncated length")
                self.p += t * (2 if tag == 6 else 1)
            elif tag == 8:
                self.string("name data")
            nr = self.leb("object reference count")
            for _ in range(nr):
                self.leb("reference")
        ne = self.leb("external count")
        for _ in range(ne):
            self.leb("external object")
            self.leb("external size")
            self.string("external name")
        self.hashes = self.p

    def leb(self, name):
        a, v, s = self.p, 0, 0
        while True:
            b = self.d[self.p]
            self.p += 1
            v |= (b & 0x7F) << s
            s += 7
            if b < 0x80:
                break
        self.f.append((a, self.p, name, v))
        return v

    def string(self, name):
        n = self.leb(name + " length")
        self.p += n


def uleb(v):
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        if v:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def gen_dart(c, data, rnd, scale):
    w = DartWalk(data)
    n = len(data)
    c.emit("empty", "3", b"", "empty file")
    c.emit("magic-only", "3", data[:8], "magic only")
    # Cuts at field starts and mid-field, a field of each name.
    seen = {}
    for a, b, name, v in w.f:
        seen.setdefault(name, []).append((a, b, v))
    for name, occ in sorted(seen.items()):
        a, b, v = occ[rnd.randrange(len(occ))]
        slug = name.replace(" ", "-")
        c.emit(f"cut-at-{slug}", "0|3" if a >= w.hashes else "3", data[:a], f"cut before the {name} at {a}")
        # Hostile values for every field kind.
        for k, hv in enumerate([v + 1, 2**31, 2**32 + v, 2**64 - 1][:1 + scale]):
            c.emit(f"{slug}-{k}", "0|3", edit(data, a, b, uleb(hv)), f"{name} at {a}: {v} -> {hv}")
        c.emit(f"{slug}-overlong", "0|3", edit(data, a, b, b"\xff" * 10 + b"\x7f"),
               f"{name} at {a}: an 11-byte LEB128")
        c.emit(f"{slug}-unended", "3", data[:a] + b"\x80" * 4, f"{name} at {a}: LEB128 cut in the middle")
    for k in range(8 * scale):
        at = rnd.randrange(8, n)
        c.emit(f"cutrand{k}", "0|3", data[:at], f"file cut at byte {at}")
    for k in range(8 * scale):
        buf = bytearray(data)
        spots = []
        for _ in range(1 + k % 4):
            at = rnd.randrange(8, n)
            buf[at] ^= 1 << rnd.randrange(8)
            spots.append(at)
        c.emit(f"flip{k}", "0|3", buf, "bits flipped at " + ",".join(map(str, spots)))
    for k in range(4 * scale):
        buf = bytearray(data)
        at = rnd.randrange(8, n)
        buf[at] = [0x00, 0x7F, 0x80, 0xFF][k % 4]
        c.emit(f"subst{k}", "0|3", buf, f"byte {at} set to 0x{buf[at]:02x}")
    c.emit("tail-garbage", "0|3", data + b"\x01\x02\x03", "three bytes past the end")
    c.emit("tail-leb", "0|3", data + b"\xff" * 20, "an unended LEB128 past the end")


# ---------------------------------------------------------------- terminal escapes ---------
ESC = "\x1b]0;owned\x07\x1b[31m"  # set the window title, then red


def escapes(kind, src, out):
    """A valid copy of src with terminal escape sequences in every text the format has:
    names, labels, file names, versions, paths. What the verbs print of them must not carry
    the escapes to a terminal."""
    data = open(src, "rb").read()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    if kind == "v8":
        snap = json.loads(data)
        snap["strings"] = [t + ESC if t else t for t in snap["strings"]]
        res = json.dumps(snap).encode()
    elif kind in ("gtext", "ruby"):
        keys = ("name", "label", "format", "version", "file", "method", "value", "kind")
        lines = []
        for ln in data.split(b"\n"):
            if not ln.strip():
                continue
            rec = json.loads(ln)
            if "leakray_graph" in rec:
                rec["version"] = "1" + ESC
            for k in keys:
                if isinstance(rec.get(k), str) and not (kind == "gtext" and k == "kind"):
                    rec[k] += ESC
            lines.append(json.dumps(rec, separators=(", ", ":") if kind == "ruby" else None)
                         .encode())
        res = b"\n".join(lines) + b"\n"
    elif kind == "nscan":
        esc = ESC.encode()
        res = re.sub(rb"(?m)^(exe|map .*) (/\S*)$", lambda m: m.group(0) + esc, data)
    else:  # dart: same-length replacements keep every length prefix right
        res = data
        for old in (b"CheckoutPage", b"_cache", b"main", b"Unknown", b"_controller"):
            res = res.replace(old, (b"\x1b]0;\x07\x1b[31m" + old)[:len(old)])
    with open(out, "wb") as f:
        f.write(res)
    print(ident_of(kind, res))


# ---------------------------------------------------------------- main ---------------------
def ident_of(kind, data):
    """An object of the input, as path and show take it."""
    return {"v8": lambda: v8_ident(data),
            "ruby": lambda: re.search(rb'"address":"(0x[0-9a-f]+)"', data).group(1).decode(),
            "gtext": lambda: gtext_ident(data),
            "nscan": lambda: re.search(rb"\nblock (0x[0-9a-f]+)", data).group(1).decode(),
            "dart": lambda: "@5"}[kind]()


def gen(kind, path, outdir, tag, scale=1, seed=0, limit=0):
    raw = open(path, "rb").read()
    gz = raw[:2] == b"\x1f\x8b"
    data = gzip.decompress(raw) if gz else raw
    rnd = random.Random(0x9E37 + len(data) + 1000003 * seed)
    ext = {"v8": ".heapsnapshot", "ruby": ".json", "gtext": ".jsonl", "nscan": ".lrn",
           "dart": ".dartheap"}[kind]
    ident = ident_of(kind, data)
    c = Cases(outdir, tag, ext, str(ident), gz_ratio=4 if gz else 0)
    {"v8": gen_v8, "ruby": gen_ruby, "gtext": gen_gtext, "nscan": gen_nscan,
     "dart": gen_dart}[kind](c, data, rnd, scale)
    if gz:  # the compressed stream itself: cut and flipped
        for at in (10, len(raw) // 2, len(raw) - 4, len(raw) - 1):
            c.emit(f"gzcut{at}", "3", raw[:at], f"gzip stream cut at byte {at}", gz=False)
        for k in range(3 * scale):
            buf = bytearray(raw)
            at = rnd.randrange(10, len(raw))
            buf[at] ^= 1 << rnd.randrange(8)
            c.emit(f"gzflip{k}", "0|3", buf, f"gzip stream bit flipped at {at}", gz=False)
        c.emit("gztrail", "0|3", raw + b"garbage", "bytes after the gzip stream", gz=False)
        c.emit("gztwice", "0|3", raw + raw, "two gzip members", gz=False)
    rows = c.rows
    if limit and len(rows) > limit:
        # A seeded subset, in order: the cases a verb was chosen for, then a sample of the rest.
        forced = [k for k, r in enumerate(rows) if r[4] != "-"]
        rest = [k for k, r in enumerate(rows) if r[4] == "-"]
        keep = set(forced[:limit]) | set(rnd.sample(rest, max(0, limit - len(forced))))
        for k, r in enumerate(rows):
            if k not in keep:
                os.unlink(r[2])
        rows = [r for k, r in enumerate(rows) if k in keep]
    for row in rows:
        row = list(row)
        row[5] = row[5].replace("\t", " ").replace("\n", " ")
        print("\t".join(row))


def main():
    a = sys.argv
    if len(a) in (6, 7, 8, 9) and a[1] == "gen":
        gen(a[2], a[3], a[4], a[5], *[int(x) for x in a[6:]])
        return 0
    if len(a) == 4 and a[1] == "v8-traces":
        v8_traces(a[2], a[3])
        return 0
    if len(a) == 5 and a[1] == "escapes":
        escapes(a[2], a[3], a[4])
        return 0
    if len(a) == 3 and a[1] == "ruby-sample":
        ruby_sample(a[2])
        return 0
    print("usage: graph_mutate.py gen KIND FILE OUTDIR TAG [SCALE [SEED]] | ruby-sample OUT",
          file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
