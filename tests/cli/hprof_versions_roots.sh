#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# hprof_versions_roots.sh: hand-built HPROF variants of tests/corrupt/handmade/valid-minimal
# (bytes written here with tests/corrupt/make_handmade.py's helpers): the same dump under each
# header version `JAVA PROFILE 1.0`, `1.0.1`, `1.0.2` and `1.0.3` (Android: Shark's size
# model) loads with its three Foo objects; an unknown version is refused with exit 3; and one
# root of each Android kind (0x89-0x8e, 0x90, each with its own body size) before the class
# dumps is read with its kind, so a wrong body size would break the records after it.
set -euo pipefail
. "$(dirname "$0")/lib/common.bash"
cli_init versions
command -v python3 >/dev/null || skip "python3 not installed"

PYTHONDONTWRITEBYTECODE=1 python3 - "$LEAKRAY_SRC/tests/corrupt" "$T" <<'PY'
import sys
sys.path.insert(0, sys.argv[1])
from make_handmade import *  # noqa: F401,F403 (the helpers and the minimal dump's parts)
out = sys.argv[2]
body = ROOTS + CLASSES + FOOS
for v in ("1.0", "1.0.1", "1.0.2", "1.0.3", "1.1"):
    d = header(b"JAVA PROFILE " + v.encode()) + NAMES + LOADS + segment(body) + END
    open(f"{out}/v{v}.hprof", "wb").write(d)
android = (u1(0x89) + oid(0x1000) + u1(0x8A) + oid(0x1010) + u1(0x8B) + oid(0x1020) +
           u1(0x8C) + oid(0x1000) + u1(0x8D) + oid(0x1010) +
           u1(0x8E) + oid(0x1020) + u4(1) + u4(0) + u1(0x90) + oid(0x1000))
d = (header(b"JAVA PROFILE 1.0.3") + NAMES + LOADS + segment(ROOTS + android + CLASSES + FOOS)
     + END)
open(f"{out}/android-roots.hprof", "wb").write(d)
PY

for v in 1.0 1.0.1 1.0.2 1.0.3; do
    run info --json --no-timing "$T/v$v.hprof"
    expect_rc 0
    json_eq 'd["version"]' "JAVA PROFILE $v"
    model="VisualVM 2.1.5 (HotSpot)"
    [ "$v" = 1.0.3 ] && model=$(json_get 'd["size_model"]')
    json_eq 'd["size_model"]' "$model"
    run histo --json --no-timing "$T/v$v.hprof"
    expect_rc 0
    json_eq '[c["count"] for c in d["classes"] if c["name"] == "Foo"]' '[3]'
done
run info --json --no-timing "$T/v1.0.3.hprof"
json_eq '"Shark" in d["size_model"]' true
run info "$T/v1.1.hprof"
expect_rc 3
expect_err "v1\.1\.hprof: offset 0x0: "

run info --json --no-timing "$T/android-roots.hprof"
expect_rc 0
json_eq 'd["roots"]["count"]' 9
json_eq 'len(d["roots"]["by_kind"])' 9
json_eq 'all(k["count"] == 1 for k in d["roots"]["by_kind"])' true
json_eq 'd["objects"]["count"]' 5
run histo --json --no-timing "$T/android-roots.hprof"
json_eq '[c["count"] for c in d["classes"] if c["name"] == "Foo"]' '[3]'
run info --no-timing "$T/android-roots.hprof"
sed -n '/^roots:/,/^diagnostics:/p' "$T/out" >"$T/roots.txt"
for k in 'interned string' finaliz debugger 'reference cleanup' 'VM internal' 'JNI monitor' unreachable; do
    grep -qi "$k" "$T/roots.txt" || fail "root kind '$k' not listed: $(cat "$T/roots.txt")"
done
echo "hprof_versions_roots: ok"
