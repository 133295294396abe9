#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# examples.sh: the programs in examples/ built against an *installed* libleakray, through
# pkg-config (examples/Makefile) and through CMake's find_package(leakray)
# (examples/CMakeLists.txt, the shared library and, once, leakray::leakray_static), then run on real dumps: top5 must list the objects and retained
# sizes `leakray top` lists; leak_gate must find the dialer dump's leak, fail the gate at 0
# allowed and pass at 1, and write the HTML page; diff must report the V8 growth `leakray
# diff` reports; scan must build its graph with lr_builder and print the retained sizes and
# the leak trace that graph has. Also the ABI: the shared library exports lr_* names only, and every function
# the public headers declare.
set -euo pipefail
. "$(dirname "$0")/lib/common.bash"
cli_init examples
cli_fixtures
command -v pkg-config >/dev/null || skip "pkg-config not installed"
command -v cc >/dev/null || skip "no C compiler"
command -v cmake >/dev/null || skip "cmake not installed"
V8FIX=$FIX/../v8

root=$T/root
DESTDIR=$root cmake --install "$LEAKRAY_BUILD" >"$T/install.log" 2>&1 ||
    { cat "$T/install.log" >&2; fail "cmake --install failed"; }
pc=$(find "$root" -name leakray.pc | head -1)
cfg=$(find "$root" -name leakrayConfig.cmake | head -1)
[ -n "$pc" ] && [ -n "$cfg" ] || fail "no leakray.pc or leakrayConfig.cmake installed"
libdir=$(dirname "$(dirname "$pc")")
prefix=$(cd "$(dirname "$cfg")/../../.." && pwd)
for h in leakray analysis report builder; do
    [ -f "$prefix/include/leakray/$h.h" ] || fail "header leakray/$h.h not installed"
done

# ABI: only lr_ names are exported, and every LR_API function of the headers is.
so=$(ls "$libdir"/libleakray.so.* | head -1)
nm -D --defined-only "$so" | awk '$2 ~ /^[TDBRVW]$/ {print $3}' | sort >"$T/exported"
grep -v '^lr_' "$T/exported" >"$T/foreign" || true
[ ! -s "$T/foreign" ] || fail "non-lr_ symbols exported: $(head -5 "$T/foreign" | tr '\n' ' ')"
cat "$prefix"/include/leakray/*.h | tr '\n' ' ' |
    grep -oE 'LR_API [^;]*\(' | grep -oE 'lr_[a-z0-9_]+ *\($' | tr -d ' (' | sort -u >"$T/declared"
missing=$(comm -23 "$T/declared" "$T/exported")
[ -z "$missing" ] || fail "declared but not exported: $missing"
[ "$(wc -l <"$T/declared")" -ge 50 ] || fail "only $(wc -l <"$T/declared") functions declared"
grep -q 'lr_heap_graph' "$T/exported" && fail "lr_heap_graph (internal) is exported"
grep -rq 'struct graph\|void \*lr_' "$prefix/include/leakray" && fail "a header exposes internals"

# A staged install's rules are not where the library was configured to look (the prefix),
# so the programs are told, as a user of a relocated install would tell them.
export LEAKRAY_RULES_DIR=$prefix/share/leakray/rules
[ -f "$LEAKRAY_RULES_DIR/jdk.rules" ] || fail "no rules installed under $LEAKRAY_RULES_DIR"

# The build folder may be an ASan/UBSan build: the examples then need the same runtime.
san=""
if grep -q '^LEAKRAY_SANITIZE:BOOL=ON' "$LEAKRAY_BUILD/CMakeCache.txt" 2>/dev/null; then
    san=-fsanitize=address,undefined
fi

# 1. pkg-config + make (examples/Makefile)
mkdir -p "$T/pc"
cp "$LEAKRAY_SRC"/examples/*.c "$LEAKRAY_SRC/examples/Makefile" "$T/pc/"
PKG_CONFIG_PATH=$(dirname "$pc") PKG_CONFIG_SYSROOT_DIR=$root PKG_CONFIG_LIBDIR= \
    make -s -C "$T/pc" CFLAGS="-O1 -Wall -Wextra -Werror $san" \
    LDFLAGS="$san -Wl,-rpath,$libdir" >"$T/make.log" 2>&1 ||
    { cat "$T/make.log" >&2; fail "examples do not build through pkg-config"; }

# 2. CMake find_package (examples/CMakeLists.txt)
cmake -S "$LEAKRAY_SRC/examples" -B "$T/cm" -DCMAKE_PREFIX_PATH="$prefix" \
    -DCMAKE_C_FLAGS="-Wall -Wextra -Werror $san" -DCMAKE_EXE_LINKER_FLAGS="$san" \
    -DCMAKE_BUILD_RPATH="$libdir" >"$T/cmake.log" 2>&1 &&
    cmake --build "$T/cm" >>"$T/cmake.log" 2>&1 ||
    { cat "$T/cmake.log" >&2; fail "examples do not build through find_package(leakray)"; }

# 3. CMake find_package, the static archive (leakray::leakray_static and its system libraries)
cmake -S "$LEAKRAY_SRC/examples" -B "$T/cs" -DCMAKE_PREFIX_PATH="$prefix" -DLEAKRAY_STATIC=ON \
    -DCMAKE_C_FLAGS="-Wall -Wextra -Werror $san" -DCMAKE_EXE_LINKER_FLAGS="$san" \
    >"$T/cmake-static.log" 2>&1 && cmake --build "$T/cs" >>"$T/cmake-static.log" 2>&1 ||
    { cat "$T/cmake-static.log" >&2; fail "examples do not link leakray::leakray_static"; }
ldd "$T/cs/top5" >"$T/ldd"
! grep -q libleakray "$T/ldd" || fail "static top5 still needs libleakray.so"
"$T/cs/top5" "$FIX/sun_jdk6_18_x64.hprof" >"$T/top5.static" || fail "static top5 failed"
grep -q '^hprof heap, ' "$T/top5.static" || fail "static top5: $(head -3 "$T/top5.static")"

for bin in "$T/pc" "$T/cm"; do
    ldd "$bin/top5" >"$T/ldd"
    grep -q "$libdir/libleakray.so" "$T/ldd" || fail "$bin/top5 is not linked with the installed library"
    how=$(basename "$bin")

    # top5 = `leakray top --top 5`
    dump=$FIX/sun_jdk6_18_x64.hprof
    "$bin/top5" "$dump" >"$T/top5.$how" || fail "top5 ($how) failed"
    "$LEAKRAY" top "$dump" --top 5 --json --no-timing >"$T/out"
    python3 - "$T/top5.$how" "$T/out" <<'PY' || fail "top5 ($how) differs from leakray top"
import json, sys
lines = open(sys.argv[1]).read().splitlines()
top = json.load(open(sys.argv[2]))["objects"]
rows = [l.split() for l in lines if l[:2] in ("1.", "2.", "3.", "4.", "5.")]
assert len(rows) == 5, lines
for r, o in zip(rows, top):
    assert r[1] == o["id"] and int(r[-1]) == o["retained"], (r, o)
assert lines[0].startswith("hprof heap, "), lines[0]
assert any(l.startswith("path to #1: ") for l in lines), lines
PY

    # leak_gate: the dialer dump holds one application leak
    set +e
    "$bin/leak_gate" "$FIX/dialer.android-hprof" 0 "$T/gate.$how.html" >"$T/gate.$how"
    rc0=$?
    "$bin/leak_gate" "$FIX/dialer.android-hprof" 1 >/dev/null
    rc1=$?
    printf 'garbage' >"$T/garbage.bin"
    "$bin/leak_gate" "$T/garbage.bin" 2>"$T/gate.err"
    rc3=$?
    # a dump cut short opens (as far as it goes): the gate refuses a verdict on it
    python3 - "$FIX/dialer.android-hprof" "$T/cut.hprof" <<'PY'
import struct, sys
b = open(sys.argv[1], "rb").read()
p = b.index(b"\0") + 1 + 12      # the header: version string, id size, time stamp
ends = []
while p + 9 <= len(b):             # records: tag, time, length, body
    p += 9 + struct.unpack(">I", b[p + 5:p + 9])[0]
    ends.append(p)
open(sys.argv[2], "wb").write(b[:ends[len(ends) // 2]])   # cut at a record's end
PY
    "$bin/leak_gate" "$T/cut.hprof" 5 >/dev/null 2>"$T/cut.err"
    rc_cut=$?
    set -e
    [ "$rc0" = 1 ] && [ "$rc1" = 0 ] && [ "$rc3" = 3 ] && [ "$rc_cut" = 3 ] ||
        fail "leak_gate ($how) exits $rc0/$rc1/$rc3/$rc_cut, expected 1/0/3/3"
    grep -q "truncated" "$T/cut.err" || fail "leak_gate ($how): $(cat "$T/cut.err")"
    grep -q '^app [0-9a-f]\{40\} [0-9]* bytes x1 DefaultVoicemailNotifier.sInstance$' "$T/gate.$how" ||
        fail "leak_gate ($how): no DefaultVoicemailNotifier group: $(head -3 "$T/gate.$how")"
    grep -q ' ~ \[' "$T/gate.$how" || fail "leak_gate ($how): no suspect step"
    grep -q 'id="leakray-data"' "$T/gate.$how.html" || fail "leak_gate ($how): no HTML report"
    grep -q "garbage.bin" "$T/gate.err" || fail "leak_gate ($how): error does not name the file"

    # diff = `leakray diff`
    "$bin/diff" "$V8FIX/heap-1.heapsnapshot" "$V8FIX/heap-2.heapsnapshot" 3 >"$T/diff.$how" ||
        fail "diff ($how) failed"
    "$LEAKRAY" diff "$V8FIX/heap-1.heapsnapshot" "$V8FIX/heap-2.heapsnapshot" --json --no-timing >"$T/out"
    python3 - "$T/diff.$how" "$T/out" <<'PY' || fail "diff ($how) differs from leakray diff"
import json, sys
lines = open(sys.argv[1]).read().splitlines()
d = json.load(open(sys.argv[2]))
rows = d["classes"]
assert lines[0].startswith("%d classes changed; objects %+d, bytes %+d" % (
    d["changed_classes"], d["total"]["count_delta"], d["total"]["size_delta"])), lines[0]
first = lines[1].split(" ", 4)
assert int(first[0]) == rows[0]["size_delta"], (first, rows[0])
assert first[4] == rows[0]["name"], (first, rows[0]["name"])
PY

    # scan: a heap built in process; its numbers follow from the graph it builds (observers
    # array 32 B, block 40 B, dismissed screen 256 B, its image 300000 B, centre 48 B)
    rc=0
    "$bin/scan" >"$T/scan.$how" || rc=$?
    [ "$rc" = 1 ] || fail "scan ($how) exited $rc, expected 1 (a leak)"
    cat >"$T/scan.want" <<'EOF'
builder heap, 9 objects, 8 references, 2 roots
top 1. 0x1004 NotificationCenter 300376
top 2. 0x1005 Array 300328
top 3. 0x1006 Block 300296
leak: CheckoutScreen, GC root System class
  NotificationCenter 0x1004 -> observers
  Array 0x1005 -> [0]
  Block 0x1006 -> self
  CheckoutScreen 0x1003 (leaking)
EOF
    diff -u "$T/scan.want" "$T/scan.$how" >&2 || fail "scan ($how): output differs"
done
echo "examples: ok (pkg-config and CMake builds; top5, leak_gate, diff; $(wc -l <"$T/declared") exported functions)"
