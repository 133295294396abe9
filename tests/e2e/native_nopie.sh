#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# native_nopie.sh: a non-PIE executable that takes malloc's address (tests/programs/native/
# nopie.c; Debian's python3.11 and node are built so) has a canonical PLT entry for malloc,
# and dlsym(RTLD_DEFAULT) returns that stub: the monitor read it as an allocator found before
# its own and reported "NOT TRACKED ... these numbers say nothing", though every call reached
# it. The report must name glibc, tracked, and the program's 384 bytes in 5 blocks.
set -euo pipefail
. "$(dirname "$0")/native_lib.bash"
nat_init native_nopie
B=$NAT_TMP/bin
mkdir -p "$B"
gcc -O0 -g -fno-omit-frame-pointer -no-pie -fno-pie -o "$B/nopie" "$NAT_PROGS/nopie.c" ||
    nat_fail "gcc could not build nopie.c"
readelf --dyn-syms -W "$B/nopie" | grep -qE ' UND malloc' || nat_fail "malloc is no import"
rc=0
"$LEAKRAY" native run --json --no-timing -- "$B/nopie" >"$NAT_TMP/r.json" \
    2>"$NAT_TMP/r.err" || rc=$?
[ "$rc" = 0 ] || nat_fail "native run: exit $rc: $(cat "$NAT_TMP/r.err")"
python3 - "$NAT_TMP/r.json" <<'PY' || nat_fail "nopie: $(head -c 600 "$NAT_TMP/r.json")"
import json, sys
d = json.load(open(sys.argv[1]))
a = d['allocator']
assert a['tracked'] is True and a['name'] == 'glibc', a
assert (d['direct']['bytes'], d['direct']['blocks']) == (384, 5), d['direct']
PY
echo "native_nopie: ok"
