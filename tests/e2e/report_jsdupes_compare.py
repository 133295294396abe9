#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# report_jsdupes_compare.py: the report model's js_strings (`leakray report --format json`)
# against `leakray dupes --json`'s: counts, patterns (dup_size as the same double), both
# top-10 lists in order with each value as its first 1,024 bytes cut on a character,
# value_bytes, count, size, wasted_bytes = size x (count - 1) // count and the first 16 ids
# as "@N". Also that no class of the classes table retains the whole heap (the synthetic root
# made "(synthetic)" such a class). Prints the first difference, exit 1.
# usage: report_jsdupes_compare.py MODEL.json DUPES.json
import json
import sys


def check(model, dupes):
    if "js_strings" not in model:
        return "no js_strings in the report model"
    m = model["js_strings"]
    for k in ("strings", "values", "code_dominated", "unverified", "patterns"):
        if m[k] != dupes[k]:
            return "%s: model %r, dupes %r" % (k, m[k], dupes[k])
    if not m["strings"] or m["patterns"][0]["name"] != "All strings":
        return "patterns %r" % m["patterns"]
    for key in ("top_count", "top_size"):
        if len(m[key]) != len(dupes[key]):
            return "%s: %d groups, dupes %d" % (key, len(m[key]), len(dupes[key]))
        for i, (a, b) in enumerate(zip(m[key], dupes[key])):
            want = b["value"].encode()[:1024].decode("utf-8", "ignore")
            got = (a["value"], a["value_bytes"], a["count"], a["size"], a["ids"])
            exp = (want, b["value_bytes"], b["count"], b["size"],
                   ["@%d" % n for n in b["ids"][:16]])
            if got != exp:
                return "%s #%d: model %r, dupes %r" % (key, i + 1, [str(x)[:80] for x in got],
                                                      [str(x)[:80] for x in exp])
            if a["value_truncated"] != (len(a["value"].encode()) < a["value_bytes"]):
                return "%s #%d: value_truncated %r" % (key, i + 1, a["value_truncated"])
            n = a["count"]
            if a["wasted_bytes"] != a["size"] * (n - 1) // n:
                return "%s #%d: wasted_bytes %d" % (key, i + 1, a["wasted_bytes"])
    cls, total = model["classes"], model["summary"]["reachable_bytes"]
    if not cls or any(c["retained_bytes"] >= total for c in cls):
        return "classes: %r" % cls[:2]
    return None


def main():
    model = json.load(open(sys.argv[1]))
    dupes = json.load(open(sys.argv[2]))["js_strings"]
    why = check(model, dupes)
    if why:
        print("  " + why)
        sys.exit(1)
    m = model["js_strings"]
    print("%s: %d strings, %d values, %d ranked groups equal" % (
        sys.argv[1].split("/")[-1], m["strings"], m["values"],
        len(m["top_count"]) + len(m["top_size"])))


if __name__ == "__main__":
    main()
