#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# foundation_histo.sh: a JVM writes heap dumps with known instance counts
# (tests/programs/foundation/FoundationDump.java), with and without compressed oops, and
# `leakray histo --json` / `info --json` must report them exactly:
#   - exactly 12345 FoundationDump$Foo, 2 FieldValues, 1 Shadow, 1 LrLocalMarker;
#   - shallow bytes per class as the JVM's own class histogram gives them (jcmd
#     GC.class_histogram on JDK 17): with compressed oops these are VisualVM 2.1.5's too;
#     without, the JVM keeps 4-byte class pointers (a 12-byte header: Foo 16 bytes) where
#     VisualVM counts a 16-byte header (Foo 24), and leakray reads the JVM's layout from the
#     dump (docs/formats/hprof.md, "Shallow sizes");
#   - histo totals equal to the sum of its rows and to info's object count and shallow total;
#   - info: format hprof, JAVA PROFILE 1.0.2, id size 8, a Java-frame root, threads;
#   - when VisualVM is installed (peers/visualvm), every class's instances and bytes equal
#     VisualVM's on the compressed-oops dump (live comparison).
set -euo pipefail
. "$(dirname "$0")/foundation_lib.bash"
fdn_init foundation_histo
fdn_need_java
vvm=$(fdn_vvm)
[ -n "$vvm" ] || echo "note: VisualVM peer not installed; live comparison skipped" >&2

for mode in coops nocoops; do
    opts=()
    [ "$mode" = nocoops ] && opts=(-XX:-UseCompressedOops)
    dump=$FDN_TMP/$mode.hprof
    fdn_make_dump "$dump" "${opts[@]}"
    "$LEAKRAY" histo --json --no-timing "$dump" >"$FDN_TMP/$mode.histo.json" ||
        fdn_fail "histo --json exited $? on $dump"
    "$LEAKRAY" info --json --no-timing "$dump" >"$FDN_TMP/$mode.info.json" ||
        fdn_fail "info --json exited $? on $dump"
    python3 - "$FDN_TMP/$mode.histo.json" "$FDN_TMP/$mode.info.json" "$mode" <<'PY' ||
import json, sys

histo = json.load(open(sys.argv[1]))
info = json.load(open(sys.argv[2]))
mode = sys.argv[3]
errors = []

def check(what, got, want):
    ok = got == want
    print(f"  {'ok ' if ok else 'BAD'} {mode} {what}: {got!r}" + ("" if ok else f" (want {want!r})"))
    if not ok:
        errors.append(what)

rows = {}
for c in histo["classes"]:
    rows.setdefault(c["name"], []).append(c)

def one(name):
    r = rows.get(name, [])
    return (r[0]["count"], r[0]["shallow"]) if len(r) == 1 else ("rows", len(r))

# Shallow sizes as the JVM's class histogram reports them (header + fields, aligned); with
# compressed oops VisualVM 2.1.5 reports the same, without it Foo 24 and Foo[][] 48.
foo_size = 16
check("FoundationDump$Foo", one("FoundationDump$Foo"), (12345, 12345 * foo_size))
check("FoundationDump$FieldValues", one("FoundationDump$FieldValues"),
      (2, 144 if mode == "coops" else 192))
check("FoundationDump$Shadow", one("FoundationDump$Shadow"), (1, 32))
check("LrLocalMarker", one("LrLocalMarker"), (1, 24))
check("LrPrimArrays", one("LrPrimArrays"), (1, 56 if mode == "coops" else 96))
check("FoundationDump$Foo[][]", one("FoundationDump$Foo[][]"), (1, 32 if mode == "coops" else 40))
# FOOS itself plus the three rows of `nested`.
check("FoundationDump$Foo[] count", one("FoundationDump$Foo[]")[0], 4)
check("LrStatics (class only, no instances)", "LrStatics" in rows, False)

tot = histo["total"]
check("total.count = sum of rows", tot["count"], sum(c["count"] for c in histo["classes"]))
check("total.shallow = sum of rows", tot["shallow"], sum(c["shallow"] for c in histo["classes"]))
check("total.count = info objects", tot["count"], info["objects"]["count"])
check("total.shallow = info shallow_total", tot["shallow"], info["shallow_total"])

check("info format", info["format"], "hprof")
check("info version", info["version"], "JAVA PROFILE 1.0.2")
check("info id_size", info["id_size"], 8)
check("info compression", info["compression"], "plain")
kinds = {k["kind"]: k["count"] for k in info["roots"]["by_kind"]}
check("info has Java frame roots", kinds.get("Java frame", 0) > 0, True)
check("info has thread object roots", kinds.get("thread object", 0) >= 2, True)
check("info threads >= 2 (main, lr-holder)", info["threads"] >= 2, True)
check("info frames > 0", info["frames"] > 0, True)
check("info classes >= 400", info["classes"] >= 400, True)
if errors:
    print(f"FAIL: {len(errors)} mismatches: {', '.join(errors)}")
    sys.exit(1)
PY
        fdn_fail "histo/info numbers differ in the $mode dump"

    if [ -n "$vvm" ] && [ "$mode" = coops ]; then
        bash "$vvm" "$dump" histo >"$FDN_TMP/$mode.vvm.txt" 2>"$FDN_TMP/$mode.vvm.err" ||
            fdn_fail "VisualVM peer failed on $dump: $(tail -3 "$FDN_TMP/$mode.vvm.err")"
        python3 "$LEAKRAY_SRC/tests/e2e/foundation_histo_cmp.py" "$FDN_TMP/$mode.histo.json" \
            "$FDN_TMP/$mode.vvm.txt" "$mode dump vs live VisualVM" ||
            fdn_fail "histogram differs from VisualVM on the $mode dump"
    fi
done
echo "PASS: foundation histo/info (compressed and uncompressed oops)"
