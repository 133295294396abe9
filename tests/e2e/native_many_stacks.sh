#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# native_many_stacks.sh: rendering a report of 1,024 leaks with 1,024 backtraces made of a
# few return addresses (tests/programs/native/manystacks.c). Each frame of each trace was
# looked up in libdw again (16,384 traces took 9 s to render); now each address is looked
# up once. Counted, not timed: a preloaded library (countdw.c) counts the CLI's calls of
# dwfl_module_getsrc, one per address looked up: 13,312 before, a handful now.
set -euo pipefail
. "$(dirname "$0")/native_lib.bash"
nat_init native_many_stacks
gcc -O0 -g -fno-omit-frame-pointer -I"$NAT_PROGS" -o "$NAT_TMP/manystacks" \
    "$NAT_PROGS/manystacks.c" || nat_fail "gcc could not build manystacks.c"
gcc -shared -fPIC -O0 -g -o "$NAT_TMP/libcountdw.so" "$NAT_PROGS/countdw.c" -ldl ||
    nat_fail "gcc could not build countdw.c"
(cd "$NAT_TMP" && timeout 120 "$LEAKRAY" native run --depth 32 --quiet -o d10.lrn -- \
    ./manystacks 10) >"$NAT_TMP/run.out" 2>&1 || nat_fail "native run: $(tail -3 "$NAT_TMP/run.out")"
# The CLI may carry the sanitizer runtime, which wants to come first among the libraries.
LR_COUNT_FILE=$NAT_TMP/count LD_PRELOAD=$NAT_TMP/libcountdw.so \
    ASAN_OPTIONS=detect_leaks=1:verify_asan_link_order=0 \
    timeout 300 "$LEAKRAY" native report --json --no-timing "$NAT_TMP/d10.lrn" \
    >"$NAT_TMP/r.json" || nat_fail "native report failed"
[ -s "$NAT_TMP/count" ] || nat_fail "the counting library did not run"
n=$(awk '{n += $1} END {print n}' "$NAT_TMP/count")
python3 - "$NAT_TMP/r.json" "$n" <<'PY' || nat_fail "many stacks"
import json, sys
d = json.load(open(sys.argv[1]))
lookups = int(sys.argv[2])
gs = d["groups"]
assert len(gs) == 1024 and d["direct"]["blocks"] == 1024, (len(gs), d["direct"])
assert len({g["signature"] for g in gs}) == 1024, "signatures repeat"
for g in gs:
    fns = [f.get("function") for f in g["frames"]]
    assert fns.count("descend") == 11 and "main" in fns, fns
assert lookups <= 64, f"{lookups} address lookups for {len(gs)} traces"
print(f"ok: {len(gs)} traces, {lookups} address lookups", file=sys.stderr)
PY
echo "native_many_stacks: ok"
