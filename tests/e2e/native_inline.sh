#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# native_inline.sh: stacks of C++ leaks whose allocation is inlined at -O2
# (tests/programs/native/inlined.cc: make_shared, make_unique, a vector's push_back). Each
# leak's stack names the user's own line (the symbol named the function, the line table a
# line of a library header: `shared_leak()+0x25 new_allocator.h:137`), and the functions
# inlined at each address are the frames `addr2line -i` gives for it, in its order, with
# its files and lines. The store describes each leak by the function the code is in, not
# by the allocator function inlined into every one of them.
set -euo pipefail
. "$(dirname "$0")/native_lib.bash"
nat_init native_inline
command -v g++ >/dev/null || nat_fail "g++ is needed to build inlined.cc"
command -v addr2line >/dev/null || nat_fail "addr2line (binutils) is needed"
g++ -O2 -g -fno-omit-frame-pointer -I"$NAT_PROGS" -o "$NAT_TMP/inlined" \
    "$NAT_PROGS/inlined.cc" || nat_fail "g++ could not build inlined.cc"
(cd "$NAT_TMP" && timeout 60 "$LEAKRAY" native run --json --no-timing -- ./inlined) \
    >"$NAT_TMP/r.json" || nat_fail "leakray native run failed"
python3 - "$NAT_TMP/r.json" "$NAT_TMP/inlined" "$NAT_PROGS/inlined.cc" <<'PY' ||
import json, subprocess, sys
d = json.load(open(sys.argv[1]))
binary, src = sys.argv[2], sys.argv[3]
leak_lines = {}
for i, text in enumerate(open(src), 1):
    if "// LEAK-" in text:
        leak_lines[text.split("// LEAK-")[1].split()[0]] = i
seen = set()
for g in d["groups"]:
    fr = g["frames"]
    # the frames of one address: inlined ones, then the function they are inlined into
    k = 0
    while k < len(fr):
        j = k
        while fr[j]["inlined"]:
            j += 1
            assert fr[j]["ip"] == fr[k]["ip"], ("an inlined frame's caller has its ip", fr[k:j + 1])
        if fr[k]["module"] == "inlined" and j > k:
            off = int(fr[k]["offset"], 16) - 1
            a2l = subprocess.run(["addr2line", "-i", "-f", "-C", "-e", binary, hex(off)],
                                 capture_output=True, text=True, check=True).stdout.split("\n")
            want = [(a2l[i], a2l[i + 1]) for i in range(0, len(a2l) - 1, 2)]
            got = [(f["function"], "%s:%d" % (f["file"], f["line"])) for f in fr[k:j + 1]]
            # the last is the function the code is in: the symbol table's name for it
            # (`shared_leak()`), where addr2line prints the debug information's
            # (`shared_leak`, a static function's)
            assert len(got) == len(want) and got[:-1] == want[:-1] and \
                got[-1][1] == want[-1][1] and got[-1][0].startswith(want[-1][0]), \
                ("inline chain differs from addr2line -i", got, want)
        k = j + 1
    # the user's line of the leak is in the stack
    for name, line in leak_lines.items():
        if any(f["file"] == src and f["line"] == line for f in fr):
            seen.add(name)
assert seen == set(leak_lines), ("leak lines named", sorted(seen), leak_lines)
print("inline chains as addr2line -i; leak lines", sorted(seen))
PY
    nat_fail "inlined frames"
# the text: no offset on an inlined function, the line of the call on the function after it
(cd "$NAT_TMP" && timeout 60 "$LEAKRAY" native run --no-timing -- ./inlined) \
    >"$NAT_TMP/r.txt" || nat_fail "leakray native run (text) failed"
grep -Eq ' std::make_shared<Big>\(\) /usr/include/.*shared_ptr\.h:[0-9]+ \(inlined\+0x' \
    "$NAT_TMP/r.txt" || nat_fail "no make_shared frame: $(grep -m3 '#' "$NAT_TMP/r.txt")"
grep -Eq " in shared_leak\(\)\+0x[0-9a-f]+ .*inlined\.cc:$(grep -n 'LEAK-shared' \
    "$NAT_PROGS/inlined.cc" | cut -d: -f1) " "$NAT_TMP/r.txt" ||
    nat_fail "shared_leak() not at its line: $(grep -m9 '#' "$NAT_TMP/r.txt")"
# the store: each leak by the function it is in
db=$NAT_TMP/store.db
(cd "$NAT_TMP" && timeout 60 "$LEAKRAY" native run --no-timing --store "$db" -- ./inlined) \
    >/dev/null || nat_fail "native run --store failed"
"$LEAKRAY" store leaks --db "$db" --json >"$NAT_TMP/leaks.json" || nat_fail "store leaks failed"
python3 - "$NAT_TMP/leaks.json" <<'PY' || nat_fail "store descriptions"
import json, sys
d = json.load(open(sys.argv[1]))
desc = sorted(l["short_description"] for l in d["leaks"])
assert not any("allocate" in x or "make_" in x for x in desc), desc
assert {"shared_leak()", "unique_leak()", "vector_leak()"} <= set(desc), desc
PY
echo "native_inline: ok"
