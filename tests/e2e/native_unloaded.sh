#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# native_unloaded.sh: leaks made in a library the program dlclose()d before the scan
# (tests/programs/native/unload.c, unplug.c). The scan cut each backtrace at the first frame
# in no mapping, the unloaded library's, dropping the program's own callers, and every frame
# in no mapping hashed alike: every such leak, of any site in any program, had one
# signature, and the store merged them. Now the callers stay, the three groups have three
# signatures, and a second run (other addresses under ASLR) gives the same three: the store
# keeps three leaks, each described by its first named caller, not by an address.
set -euo pipefail
. "$(dirname "$0")/native_lib.bash"
nat_init native_unloaded
gcc -O0 -g -fno-omit-frame-pointer -fPIC -shared -o "$NAT_TMP/libunplug.so" \
    "$NAT_PROGS/unplug.c" || nat_fail "gcc could not build unplug.c"
gcc -O0 -g -fno-omit-frame-pointer -I"$NAT_PROGS" -o "$NAT_TMP/unload" \
    "$NAT_PROGS/unload.c" -ldl || nat_fail "gcc could not build unload.c"
for i in 1 2; do
    rc=0
    (cd "$NAT_TMP" && timeout 60 "$LEAKRAY" native run --json --no-timing -- ./unload \
        ./libunplug.so) >"$NAT_TMP/r$i.json" 2>"$NAT_TMP/run$i.err" || rc=$?
    [ $rc = 0 ] || nat_fail "native run $i: exit $rc: $(cat "$NAT_TMP/run$i.err")"
done
python3 - "$NAT_TMP/r1.json" "$NAT_TMP/r2.json" <<'PY' || nat_fail "the unloaded library's leaks"
import json, sys
runs = [json.load(open(p)) for p in sys.argv[1:]]
sigs = []
for d in runs:
    assert d["direct"]["blocks"] == 3 and d["direct"]["bytes"] == 444, d["direct"]
    gs = d["groups"]
    assert len(gs) == 3, [(g["bytes"], len(g["frames"])) for g in gs]
    for g in gs:
        fns = [f.get("function") for f in g["frames"]]
        want = "lose_a" if g["bytes"] == 111 else "lose_b"
        assert want in fns and "main" in fns, (g["bytes"], fns)
        assert fns.index(want) >= 2, fns
    s = sorted(g["signature"] for g in gs)
    assert len(set(s)) == 3, s
    sigs.append(s)
assert sigs[0] == sigs[1], sigs
PY
# In a leak store the two runs are three leaks, each described by the caller that has a name.
DB=$NAT_TMP/leaks.db
for i in 1 2; do
    "$LEAKRAY" store ingest --db "$DB" --app unload --version $i "$NAT_TMP/r$i.json" \
        >/dev/null 2>&1 || nat_fail "store ingest of run $i failed"
done
"$LEAKRAY" store leaks --db "$DB" --kind native --json >"$NAT_TMP/leaks.json" ||
    nat_fail "store leaks failed"
python3 - "$NAT_TMP/leaks.json" <<'PY' || nat_fail "the unloaded library's leaks in the store"
import json, sys
leaks = json.load(open(sys.argv[1]))["leaks"]
desc = sorted(l["short_description"] for l in leaks)
assert desc == ["?? from lose_a", "?? from lose_a", "?? from lose_b"], desc
PY
echo "native_unloaded: ok"
