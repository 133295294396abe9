#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# big_offsets.sh: a dump larger than 8 GiB, whose object records all start past byte 2^33,
# reads as the same dump below 4 GiB. The file is sparse (a few MB on disk): a real JVM dump
# (CliTarget) with four 2.25 GB ALLOC_SITES records (a record type readers skip, bodies left
# as holes) put between the header and the first record, so that the high bits of every
# record's offset (kept apart from its low 32 bits while loading) are 2, not 0 or 1.
# analyze, top and histo print exactly what they print for the original (paths aside); info
# reports the larger size.
set -euo pipefail
. "$(dirname "$0")/lib/common.bash"
cli_init big-offsets
cli_target_dump
big=$T/big.hprof
trap 'rm -f "$big"' EXIT # sparse, but 9 GB to anything that copies it
python3 - "$DUMP" "$big" <<'PY'
import struct, sys
src, dst = sys.argv[1], sys.argv[2]
d = open(src, "rb").read()
head = d.index(b"\0") + 1 + 4 + 8  # "JAVA PROFILE 1.0.x\0", id size, timestamp
skip = 0x86000000  # 2.25 GB per record: four of them put every record past 2^33
with open(dst, "wb") as f:
    f.write(d[:head])
    for _ in range(4):
        f.write(struct.pack(">BII", 0x06, 0, skip))
        f.seek(skip, 1)  # a hole: never written, never read
    f.write(d[head:])
PY
size=$(stat -c %s "$big")
[ "$size" -gt $((1 << 33)) ] || fail "file is $size bytes"
[ "$(du -k "$big" | cut -f1)" -lt $((64 * 1024)) ] || fail "file is not sparse"
for verb in analyze top "histo --retained" histo; do
    # shellcheck disable=SC2086
    run $verb --no-progress --no-timing "$DUMP"
    expect_rc 0
    sed "s|$DUMP|DUMP|g" "$T/out" >"$T/small.out"
    # shellcheck disable=SC2086
    run $verb --no-progress --no-timing "$big"
    expect_rc 0
    sed "s|$big|DUMP|g" "$T/out" | diff -u "$T/small.out" - >"$T/diff" || {
        head -20 "$T/diff" >&2
        fail "$verb: output on the >8 GiB dump differs"
    }
done
run info --no-progress --no-timing --json "$big"
expect_rc 0
json_eq 'd["file_size"] > 2**33' true
echo "big_offsets: ok ($size bytes, $(du -k "$big" | cut -f1) KB on disk)"
