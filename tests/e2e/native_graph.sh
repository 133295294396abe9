#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# native_graph.sh: scans written with `leakray native run --graph` load as heap graphs.
# noleak.c keeps a 50-node list (calloc'd nodes, strdup'd names) from a global: histo counts
# 50 blocks of 16 bytes at the calloc site and 50 at strdup; the head node is held by a root
# and retains the whole list (top); path reaches a strdup'd name from that root in 2 steps;
# cycle.c's leaked ring is one strongly connected component of 3 blocks (cycles), unrooted.
# Roots carry the kind of memory that holds the block: global data (noleak's list head),
# a blocked thread's stack (stack.c), another thread's registers (regs.c), thread-local
# variables (tls.c); ids are 0x addresses.
set -euo pipefail
. "$(dirname "$0")/native_lib.bash"
nat_init native_graph
B=$NAT_TMP/bin
mkdir -p "$B"
for p in noleak cycle stack regs tls; do
    gcc -O0 -g -fno-omit-frame-pointer -pthread -o "$B/$p" "$NAT_PROGS/$p.c" ||
        nat_fail "gcc could not build $p.c"
    (cd "$B" && "$LEAKRAY" native run --graph --no-timing -o "$NAT_TMP/$p.lrn" -- "./$p") \
        >/dev/null || nat_fail "native run --graph $p failed"
done
G=$NAT_TMP/noleak.lrn
"$LEAKRAY" histo "$G" --json --no-timing >"$NAT_TMP/histo.json"
"$LEAKRAY" top "$G" --top 1 --json --no-timing >"$NAT_TMP/top.json"
"$LEAKRAY" cycles "$NAT_TMP/cycle.lrn" --json --no-timing >"$NAT_TMP/cycles.json"
"$LEAKRAY" info "$NAT_TMP/cycle.lrn" --json --no-timing >"$NAT_TMP/info.json"
for p in noleak stack regs tls; do
    "$LEAKRAY" info "$NAT_TMP/$p.lrn" --json --no-timing >"$NAT_TMP/info-$p.json"
done
HEAD=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["objects"][0]["id"])' \
    "$NAT_TMP/top.json")
"$LEAKRAY" show "$G" "$HEAD" --json --no-timing >"$NAT_TMP/show.json"
NAME=$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
print([e["to"] for e in d["object"]["edges"] if e["name"] == "+0x8"][0])' "$NAT_TMP/show.json") ||
    nat_fail "no +0x8 edge from the list head: $(head -c 600 "$NAT_TMP/show.json")"
"$LEAKRAY" path "$G" "$NAME" --json --no-timing >"$NAT_TMP/path.json"
python3 - "$NAT_TMP" <<'PY' || nat_fail "checks above"
import json, sys
t = sys.argv[1]
fails = 0
def check(ok, what):
    global fails
    print(("ok: " if ok else "FAIL: ") + what, file=sys.stderr)
    fails += not ok
h = json.load(open(t + "/histo.json"))
rows = {r["name"].split(" ")[0]: r for r in h["classes"]}
check(rows.get("main", {}).get("count") == 50 and rows["main"]["shallow"] == 800,
      f"histo: 50 list nodes of 16 bytes at main's calloc: {rows.get('main')}")
check(rows.get("__strdup", {}).get("count") == 50,
      f"histo: 50 names from strdup: {rows.get('__strdup')}")
top = json.load(open(t + "/top.json"))["objects"][0]
check(top["retained"] >= 50 * 16 + 50 * 5, f"top: the head retains the list: {top}")
p = json.load(open(t + "/path.json"))
steps = p.get("path") or []
check(p["reachable"] and len(steps) == 2 and steps[1]["name"] == "+0x8",
      f"path: root-held head -> +0x8 -> name, {len(steps)} steps")
c = json.load(open(t + "/cycles.json"))
check(c["n_sccs"] == 1 and c["sccs"][0]["size"] == 3,
      f"cycles: one strongly connected component of 3: {str(c)[:300]}")
i = json.load(open(t + "/info.json"))
check(i["format"] == "native" and i["roots"]["count"] == 0 and i["objects"]["count"] == 3,
      f"info: native format, the ring alone and unrooted: {i['format']} {i['objects']['count']}"
      f" objects, {i['roots']['count']} roots")
check(top["id"].startswith("0x") and int(top["id"], 16) > 4096,
      f"ids are hex addresses: {top['id']}")
def kinds(p):
    r = json.load(open(f"{t}/info-{p}.json"))["roots"]["by_kind"]
    return {k["kind"]: k["count"] for k in r}
for prog, kind, n in (("noleak", "global data", 1), ("stack", "native stack", 1),
                      ("regs", "registers", 1), ("tls", "thread-local storage", 2)):
    k = kinds(prog)
    check(k.get(kind) == n and "unknown" not in k, f"{prog}: {n} root(s) of kind {kind}: {k}")
check(p.get("root", {}).get("kind") == "global data",
      f"path: the root is the list's global: {p.get('root')}")
sys.exit(1 if fails else 0)
PY
# Text names a native root in a native program's words: a stack read "Input or output
# parameters in native code", JNI's term for that kind in a JVM dump.
"$LEAKRAY" analyze "$NAT_TMP/stack.lrn" --no-timing >"$NAT_TMP/stack.txt" || true
grep -q 'GC Root: Thread stack$' "$NAT_TMP/stack.txt" ||
    nat_fail "the stack-held block's root is not titled 'Thread stack': $(grep 'GC Root' \
        "$NAT_TMP/stack.txt")"
echo "native_graph: histo, top, show, path, cycles and info read native heap graphs"
