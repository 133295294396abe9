#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# v8_bad_input.sh: damaged .heapsnapshot files through the CLI (the reader's unit tests cover
# the library): truncations, wrong node/edge counts, an unterminated string, bad escapes,
# a non-number in the arrays, fields in another order (read as the original; a type list
# away from the `type` field refused), a gzip stream cut short, and seeded bit flips. Every damaged
# file exits 3 with one message naming the file and a byte offset (JSON: numeric offset),
# where the offset of a local defect points at it; a flip that leaves a valid snapshot may
# load (exit 0). Never a crash or a sanitizer report.
set -euo pipefail
. "$(dirname "$0")/lib/common.bash"
cli_init v8bad
command -v python3 >/dev/null || skip "python3 not installed"
S=$LEAKRAY_SRC/tests/fuzz/corpus/v8_load/node20-weak.heapsnapshot
[ -f "$S" ] || fail "missing $S"
run histo --no-timing "$S"
expect_rc 0

# bad NAME: the last run exited 3 with a message "NAME...: offset 0x..".
bad() {
    [ "$RC" = 3 ] || fail "$1: exit $RC, expected 3"
    grep -qE "$1: offset 0x[0-9a-f]+: " "$T/err" || fail "$1: message without file and offset"
    ! grep -q -e Sanitizer -e 'runtime error' "$T/err" || fail "$1: sanitizer report"
}
# edit NAME OLD NEW: writes $T/NAME.heapsnapshot with the first OLD replaced by NEW and
# prints the byte offset of the edit.
edit() {
    python3 - "$S" "$T/$1.heapsnapshot" "$2" "$3" <<'PY'
import sys
src, dst, old, new = sys.argv[1:]
b = open(src, "rb").read()
at = b.index(old.encode())
open(dst, "wb").write(b[:at] + new.encode() + b[at + len(old):])
print(at)
PY
}

size=$(stat -c %s "$S")
for cut in 1 40 200 600 $((size - 60)) $((size - 2)); do
    head -c "$cut" "$S" >"$T/cut$cut.heapsnapshot"
    run info "$T/cut$cut.heapsnapshot"
    bad "cut$cut.heapsnapshot"
done

# Local defects: the reported offset lies at or after the edit and within 64 bytes of it.
near() {
    local name=$1 at=$2
    run info --json "$T/$name.heapsnapshot"
    [ "$RC" = 3 ] || fail "$name: exit $RC, expected 3"
    json_eq 'd["error"]["exit"]' 3
    local off
    off=$(json_get 'd["error"]["offset"]')
    [ "$off" -ge "$at" ] && [ "$off" -le $((at + 64)) ] ||
        fail "$name: offset $off, edit at $at"
}
at=$(edit badesc '"Object"' '"Obj\xect"');          near badesc "$at"
at=$(edit badu '"Object"' '"Obj\u12G4"');           near badu "$at"
at=$(edit notnum ',3,9,14' ',3,9,x4');              near notnum "$at"
at=$(edit unterminated '"b"]}' '"b]}');             run info "$T/unterminated.heapsnapshot"; bad unterminated.heapsnapshot
at=$(edit nodes9 '"node_count":8' '"node_count":9'); run histo "$T/nodes9.heapsnapshot"; bad nodes9.heapsnapshot
at=$(edit nodes7 '"node_count":8' '"node_count":7'); run top "$T/nodes7.heapsnapshot"; bad nodes7.heapsnapshot
at=$(edit edges12 '"edge_count":11' '"edge_count":12'); run analyze "$T/edges12.heapsnapshot"; bad edges12.heapsnapshot
at=$(edit huge '"node_count":8' '"node_count":4000000000'); run info "$T/huge.heapsnapshot"; bad huge.heapsnapshot
at=$(edit edgecnt '9,1,1,0,2,0,0' '9,1,1,0,9,0,0'); run clusters "$T/edgecnt.heapsnapshot"; bad edgecnt.heapsnapshot

# Fields in another order: node_types / edge_types hold one entry per field, the `type`
# field's entry being its list of names (DevTools reads it there). A snapshot with its fields
# and values permuted consistently reads as the original; a type list that is not at the
# `type` field's entry is refused, not read as every node's type.
python3 - "$S" "$T" <<'PY'
import json, sys
src, out = sys.argv[1:]
d = json.load(open(src))
m = d["snapshot"]["meta"]
def permute(fields, types, data, order):
    n = len(fields)
    rows = [data[i:i + n] for i in range(0, len(data), n)]
    return ([fields[k] for k in order], [types[k] for k in order],
            [v for r in rows for v in (r[k] for k in order)])
nf = len(m["node_fields"])
m["node_fields"], m["node_types"], d["nodes"] = permute(
    m["node_fields"], m["node_types"], d["nodes"], list(range(nf))[::-1])
ef = len(m["edge_fields"])
m["edge_fields"], m["edge_types"], d["edges"] = permute(
    m["edge_fields"], m["edge_types"], d["edges"], list(range(ef))[::-1])
json.dump(d, open(f"{out}/reordered.heapsnapshot", "w"))
ti = m["node_fields"].index("type")
nt = m["node_types"]
nt[ti], nt[(ti + 1) % nf] = nt[(ti + 1) % nf], nt[ti]
json.dump(d, open(f"{out}/typesmoved.heapsnapshot", "w"))
PY
run histo --retained --no-timing "$S"
cp "$T/out" "$T/histo-original"
run histo --retained --no-timing "$T/reordered.heapsnapshot"
expect_rc 0
cmp -s "$T/out" "$T/histo-original" ||
    fail "fields in another order: $(diff "$T/histo-original" "$T/out" | head -6)"
run histo --no-timing "$T/typesmoved.heapsnapshot"
bad typesmoved.heapsnapshot
grep -q 'node_types has its type list at entry' "$T/err" || fail "typesmoved: $(cat "$T/err")"

# A gzip snapshot cut short.
gzip -c "$S" | head -c 300 >"$T/cutgz.heapsnapshot.gz"
run info "$T/cutgz.heapsnapshot.gz"
[ "$RC" = 3 ] || fail "cut gzip: exit $RC, expected 3"

# Seeded bit flips: exit 0 or 3 with an offset, never anything else.
python3 - "$S" "$T" <<'PY'
import random, sys
src, out = sys.argv[1:]
b = bytearray(open(src, "rb").read())
r = random.Random(20240601)
for i in range(40):
    t = bytearray(b)
    for _ in range(1 + i % 3):
        at = r.randrange(len(t))
        t[at] ^= 1 << r.randrange(8)
    open(f"{out}/flip{i}.heapsnapshot", "wb").write(t)
PY
ok=0 refused=0
for i in $(seq 0 39); do
    run histo --retained --no-timing "$T/flip$i.heapsnapshot"
    case $RC in
    0) ok=$((ok + 1)) ;;
    3) bad "flip$i.heapsnapshot"; refused=$((refused + 1)) ;;
    *) fail "flip$i: exit $RC" ;;
    esac
done
[ "$refused" -ge 10 ] || fail "only $refused of 40 bit-flipped snapshots refused"
echo "v8_bad_input: ok ($refused flips refused, $ok loaded)"
