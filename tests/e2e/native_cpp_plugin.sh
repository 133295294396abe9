#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# native_cpp_plugin.sh: a C program that dlopens a C++ library without RTLD_GLOBAL, as
# CPython imports an extension module (tests/programs/native/cpphost.c, cppplug.cc). The
# library's operator new binds to the monitor's, whose next definition is in a local scope
# RTLD_NEXT does not see: every such program crashed on its first new (a call to address
# 0). Now it runs as without the monitor, and the one object it lost is found.
set -euo pipefail
. "$(dirname "$0")/native_lib.bash"
nat_init native_cpp_plugin
command -v g++ >/dev/null || nat_fail "g++ is needed to build cppplug.cc"
g++ -O0 -g -fno-omit-frame-pointer -fPIC -shared -o "$NAT_TMP/libcppplug.so" \
    "$NAT_PROGS/cppplug.cc" || nat_fail "g++ could not build cppplug.cc"
gcc -O0 -g -fno-omit-frame-pointer -I"$NAT_PROGS" -o "$NAT_TMP/cpphost" \
    "$NAT_PROGS/cpphost.c" -ldl || nat_fail "gcc could not build cpphost.c"
(cd "$NAT_TMP" && ./cpphost) 2>"$NAT_TMP/plain.err" || nat_fail "cpphost fails on its own"
rc=0
(cd "$NAT_TMP" && timeout 60 "$LEAKRAY" native run --json --no-timing -- ./cpphost) \
    >"$NAT_TMP/r.json" 2>"$NAT_TMP/run.err" || rc=$?
[ $rc = 0 ] || nat_fail "native run: exit $rc: $(cat "$NAT_TMP/run.err")"
grep -q '^plugin: 100$' "$NAT_TMP/run.err" || nat_fail "the program's output: $(head -3 \
    "$NAT_TMP/run.err")"
python3 - "$NAT_TMP/r.json" <<'PY' || nat_fail "the plugin's lost object"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["direct"]["blocks"] == 1 and d["direct"]["bytes"] == 72, d["direct"]
assert d["indirect"]["blocks"] == 0, d["indirect"]
fr = d["groups"][0]["frames"]
assert any(f["function"] == "cppplug_run" for f in fr), [f["function"] for f in fr]
PY
echo "native_cpp_plugin: ok"
