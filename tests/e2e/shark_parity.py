#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# shark_parity.py: reduces Shark's analysis (scripts/shark-peer.sh ... analyze --json) and
# `leakray analyze --json` to one canonical form, and lists every point on which they differ.
# The canonical form keeps what is stable across runs of the same program: leaking objects
# (named by their KeyedWeakReference key, else by class), each trace's nodes (class, type,
# Leaking status, reference kind and name, `~~~` suspect flag), the leaking object's reason and
# watch labels, GC root, signature, and leak/unreachable counts, and apart from the nodes (so
# reductions of the nodes alone, tests/e2e/agent_golden.py, keep their form) the simple name of
# the class declaring each field reference ("owners": `BaseHolder.slot` where a subclass
# declares a `slot` of its own). Ids (also in the names of map entries under keys that are no
# strings), sizes and timings go.
#   shark_parity.py norm-shark SHARK.json > CANON.json
#   shark_parity.py norm-leakray LEAKRAY.json > CANON.json
#   shark_parity.py compare NAME GOLDEN.json LEAKRAY_CANON.json [KNOWN.txt]
#   shark_parity.py sizes NAME SHARK.txt LEAKRAY.txt [KNOWN.txt]
#   shark_parity.py sizes-no-threads NAME SHARK.txt LEAKRAY.txt [KNOWN.txt]
#   shark_parity.py size-lines SHARK.txt > NAME.retaining.txt
# sizes compares the "Retaining" and "bytes retained" lines of Shark's text report (or of its
# reduction by size-lines) with those of `leakray analyze --size-model shark --no-suspects`,
# one by one in order; sizes-no-threads leaves out the lines of thread nodes (marked by
# size-lines), whose figures change from run to run of the same program.
# compare and sizes print one line per difference, prefixed NAME; lines listed in KNOWN.txt (documented
# in docs/design.md, "Parity with Shark") are expected, any other line fails (exit 1). A known
# line that no longer occurs is reported as fixed, so the list can be trimmed.
import json
import re
import sys

# a map entry under a key that is no string is named after the key object's id
# ("HashMap[instance @28039014616 of java.lang.Integer]"), which changes per run
OBJECT_ID = re.compile(r"instance @[0-9]+ of ")
UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")

STATUS = {"LEAKING": "YES", "NOT_LEAKING": "NO", "UNKNOWN": "UNKNOWN",
          "YES": "YES", "NO": "NO"}
# references whose owner is a declaring class (Shark's owningClassSimpleName)
FIELD_REFS = ("instance_field", "static_field")
# labels of the leaking object that are facts of the dump, not of the analyzer
LABEL_PREFIXES = ("key = ", "watchDurationMillis = ", "retainedDurationMillis = ")


def node(cls, typ, leaking, reason, ref):
    return {"class": cls, "type": typ, "leaking": STATUS[leaking], "reason": reason or "",
            "ref": ref}


def finish(traces, counts, meta):
    # name each trace by its watch key, else by the leaking object's class (#n on repeats)
    seen = {}
    out = {}
    for t in sorted(traces, key=lambda t: (t["_key"], t["signature"], path_str(t))):
        k = t.pop("_key")
        seen[k] = seen.get(k, 0) + 1
        out[k if seen[k] == 1 else "%s#%d" % (k, seen[k])] = t
    return {"counts": counts, "metadata": meta, "traces": out}


def trace_key(last):
    # random watch keys (UUIDs, as LeakCanary makes them) name nothing stable: use the class
    for label in last["labels"]:
        if label.startswith("key = ") and not UUID.search(label):
            return label
    return last["class"]


def keep_labels(last):
    labels = [l for l in last["labels"] if l.startswith(LABEL_PREFIXES)]
    if any(UUID.search(l) for l in labels):
        # a real watcher: its durations are wall-clock times of that run
        labels = [re.sub(r"Millis = [0-9]+$", "Millis = N", UUID.sub("UUID", l)) for l in labels]
    return labels


def stable_name(name):
    return OBJECT_ID.sub("instance @N of ", name)


def simple(cls):
    return cls.rsplit(".", 1)[-1] if cls else None


def norm_shark(d):
    traces = []
    counts = {"application": 0, "library": 0, "unreachable": d["unreachable"]}
    for leak in d["leaks"]:
        counts[leak["kind"]] += 1
        for t in leak["traces"]:
            nodes, owners = [], []
            for e in t["elements"]:
                ref = None
                if "reference" in e:
                    r = e["reference"]
                    ref = {"type": r["type"].lower(),
                           "name": stable_name(r["name"]) if r["type"] != "LOCAL" else "",
                           "suspect": r["suspect"]}
                nodes.append(node(e["class"], e["type"], e["leaking"], e["reason"], ref))
                owners.append(simple(e["reference"].get("owning_class"))
                              if ref and ref["type"] in FIELD_REFS else None)
            last = t["elements"][-1]
            traces.append({"_key": trace_key(last), "gc_root": t["gc_root"],
                           "signature": t["signature"], "library": leak["kind"] == "library",
                           "labels": keep_labels(last),
                           "nodes": nodes, "owners": owners})
    meta = {k: v for k, v in d["metadata"].items()
            if k in ("Build.VERSION.SDK_INT", "Build.MANUFACTURER")}
    return finish(traces, counts, meta)


def norm_leakray(d):
    traces = []
    counts = {"application": len(d["application_leaks"]), "library": len(d["library_leaks"]),
              "unreachable": len(d["unreachable_objects"])}
    for t in d["traces"]:
        nodes, owners = [], []
        for e in t["elements"]:
            ref = None
            if "reference" in e:
                r = e["reference"]
                ref = {"type": r["type"], "name": stable_name(r["name"]), "suspect": r["suspect"]}
            nodes.append(node(e["class"], e["type"], e["leaking"], e["reason"], ref))
            owners.append(simple(e["reference"].get("owner"))
                          if ref and ref["type"] in FIELD_REFS else None)
        last = t["elements"][-1]
        traces.append({"_key": trace_key(last), "gc_root": t["gc_root"]["description"],
                       "signature": t["signature"], "library": t["library_leak"],
                       "labels": keep_labels(last),
                       "nodes": nodes, "owners": owners})
    meta = {}
    b = d.get("build") or {}
    if b.get("android"):
        meta = {"Build.VERSION.SDK_INT": str(b.get("sdk_int")),
                "Build.MANUFACTURER": b.get("manufacturer") or "unknown"}
    return finish(traces, counts, meta)


def ref_str(r):
    if r is None:
        return ""
    name = {"array_entry": "[%s]" % r["name"], "local": "<Java Local>"}.get(r["type"], r["name"])
    if r["type"] == "static_field":
        name = "static " + name
    return " -%s%s->" % ("~" if r["suspect"] else "", name)


def path_str(t):
    return " ".join("%s%s" % (n["class"] + (" class" if n["type"] == "class" else ""),
                              ref_str(n["ref"])) for n in t["nodes"])


def compare(name, gold, lr):
    diffs = []
    for k in ("application", "library", "unreachable"):
        if gold["counts"][k] != lr["counts"][k]:
            diffs.append("%s leaks: shark=%s leakray=%s" % (k, gold["counts"][k], lr["counts"][k]))
    for k, v in gold["metadata"].items():
        if lr["metadata"].get(k) != v:
            diffs.append("metadata %s: shark=%s leakray=%s" % (k, v, lr["metadata"].get(k)))
    gt, lt = gold["traces"], lr["traces"]
    for k in sorted(set(gt) - set(lt)):
        diffs.append("trace %s: only in shark: %s" % (k, path_str(gt[k])))
    for k in sorted(set(lt) - set(gt)):
        diffs.append("trace %s: only in leakray: %s" % (k, path_str(lt[k])))
    for k in sorted(set(gt) & set(lt)):
        g, l = gt[k], lt[k]
        for f in ("gc_root", "signature", "library", "labels"):
            if g[f] != l[f]:
                diffs.append("trace %s: %s: shark=%s leakray=%s" % (k, f, g[f], l[f]))
        if [(n["class"], n["type"]) for n in g["nodes"]] != [(n["class"], n["type"]) for n in l["nodes"]]:
            diffs.append("trace %s: path: shark=%s | leakray=%s" % (k, path_str(g), path_str(l)))
            gl, ll = g["nodes"][-1], l["nodes"][-1]
            for f in ("leaking", "reason"):
                if gl[f] != ll[f]:
                    diffs.append("trace %s: leaking object %s: shark=%s leakray=%s" % (k, f, gl[f], ll[f]))
            continue
        for i, (gn, ln) in enumerate(zip(g["nodes"], l["nodes"])):
            where = "trace %s: node %d (%s)" % (k, i, gn["class"])
            for f in ("leaking", "reason"):
                if gn[f] != ln[f]:
                    diffs.append("%s %s: shark=%s leakray=%s" % (where, f, gn[f], ln[f]))
            if ref_str(gn["ref"]) != ref_str(ln["ref"]):
                diffs.append("%s reference: shark=%s leakray=%s" % (where, ref_str(gn["ref"]).strip(),
                                                                   ref_str(ln["ref"]).strip()))
        # goldens written before the owners were kept have none: nothing to compare
        for i, (go, lo) in enumerate(zip(g.get("owners") or [], l.get("owners") or [])):
            if go != lo:
                diffs.append("trace %s: node %d (%s) owner: shark=%s leakray=%s"
                             % (k, i, g["nodes"][i]["class"], go, lo))
    return ["%s: %s" % (name, d) for d in diffs]


THREAD_MARK = "  [thread]"


def size_lines(path):
    """(line, of a thread node) for each size line of a text report, or of its reduction by
    `size-lines` (a thread node's lines end in THREAD_MARK there)."""
    # Shark writes U+200B before the leaking object's lines (a terminal trick): left out
    with open(path, encoding="utf-8") as f:
        text = [l.rstrip("\n").replace("\u200b", "") for l in f]
    sized = [l for l in text if "Retaining" in l or "bytes retained" in l]
    if not any(l.startswith("\u252c") for l in text):  # no "┬───": a reduction
        return [(l[:-len(THREAD_MARK)], True) if l.endswith(THREAD_MARK) else (l, False)
                for l in sized]
    out, node = [], []
    # a node's lines run from its "├─"/"╰→" line to the next one; its label "Thread name:"
    # comes after its "Retaining" line
    for l in text + ["\u251c\u2500"]:
        if l.startswith(("\u251c\u2500", "\u2570\u2192", "\u252c")) or "bytes retained" in l:
            thread = any("Thread name: '" in x for x in node)
            out += [(x, thread) for x in node if "Retaining" in x]
            node = []
        if "bytes retained" in l:
            out.append((l, False))
        else:
            node.append(l)
    return out


def sizes(name, shark_txt, leakray_txt, threads=True):
    # a thread node's figures follow what its stack holds at the instant of the dump (a lock
    # node queued or not), which changes from one run of a program to the next: compared
    # only on one dump (live), not against a golden of another run
    g = [l for l, t in size_lines(shark_txt) if threads or not t]
    l = [l for l, t in size_lines(leakray_txt) if threads or not t]
    diffs = []
    for i in range(max(len(g), len(l))):
        a = g[i].strip() if i < len(g) else "(none)"
        b = l[i].strip() if i < len(l) else "(none)"
        if a != b:
            diffs.append("%s: size line %d: shark=%s leakray=%s" % (name, i + 1, a, b))
    return diffs, len(g)


def report(name, diffs, known, what):
    new = [d for d in diffs if d not in known]
    for d in diffs:
        print(("NEW  " if d in new else "known ") + d)
    for d in sorted(known - set(diffs)):
        print("fixed (drop from the known list) " + d)
    print("%s: %s, %d differences (%d new)" % (name, what, len(diffs), len(new)))
    return 1 if new else 0


def known_lines(argv, i, name, kind):
    if len(argv) <= i:
        return set()
    with open(argv[i], encoding="utf-8") as f:
        lines = {l.rstrip("\n") for l in f if l.startswith(name + ": ")}
    sized = {l for l in lines if l.startswith(name + ": size line ")}
    return sized if kind == "sizes" else lines - sized


def main(argv):
    if len(argv) == 3 and argv[1] in ("norm-shark", "norm-leakray"):
        d = json.load(open(argv[2]))
        c = norm_shark(d) if argv[1] == "norm-shark" else norm_leakray(d)
        json.dump(c, sys.stdout, indent=1, sort_keys=True, ensure_ascii=False)
        sys.stdout.write("\n")
        return 0
    if len(argv) in (5, 6) and argv[1] == "compare":
        name, gold, lr = argv[2], json.load(open(argv[3])), json.load(open(argv[4]))
        return report(name, compare(name, gold, lr), known_lines(argv, 5, name, "compare"),
                      "%d traces in shark, %d in leakray" % (len(gold["traces"]), len(lr["traces"])))
    if len(argv) == 3 and argv[1] == "size-lines":
        for l, t in size_lines(argv[2]):
            print(l + (THREAD_MARK if t else ""))
        return 0
    if len(argv) >= 2 and argv[1] == "sizes-no-threads":
        argv = argv[:1] + ["sizes"] + argv[2:]
        threads = False
    else:
        threads = True
    if len(argv) in (5, 6) and argv[1] == "sizes":
        name = argv[2]
        diffs, n = sizes(name, argv[3], argv[4], threads)
        return report(name, diffs, known_lines(argv, 5, name, "sizes"), "%d size lines in shark" % n)
    sys.stderr.write(__doc__ if __doc__ else "usage: see the header of shark_parity.py\n")
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
