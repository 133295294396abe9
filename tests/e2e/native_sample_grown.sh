#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# native_sample_grown.sh: under sampling a block past the sample size always has a backtrace,
# whether it was made that large or grew there. tests/programs/native/grown.c loses a buffer
# grown by realloc from 64 bytes to 1 MiB (read_all) and a block of 1 MiB (make_big):
# `native run --sample 64K` reports both with their functions (the grown one had no
# backtrace: its first 64 bytes were sampled away and realloc kept that).
set -euo pipefail
. "$(dirname "$0")/native_lib.bash"
nat_init native_sample_grown
B=$NAT_TMP/bin
mkdir -p "$B"
gcc -O0 -g -fno-omit-frame-pointer -o "$B/grown" "$NAT_PROGS/grown.c" ||
    nat_fail "gcc could not build grown.c"
rc=0
"$LEAKRAY" native run --sample 64K --json --no-timing -- "$B/grown" > "$NAT_TMP/o.json" \
    2> "$NAT_TMP/o.err" || rc=$?
[ "$rc" = 0 ] || nat_fail "exit $rc: $(cat "$NAT_TMP/o.err")"
python3 - "$NAT_TMP/o.json" <<'PY' || nat_fail "a grown block's backtrace under sampling"
import json, sys
d = json.load(open(sys.argv[1]))
big = [g for g in d["groups"] if g["bytes"] == 1 << 20]
assert len(big) == 2, [(g["bytes"], g["blocks"]) for g in d["groups"]]
fns = sorted(next((f["function"] for f in g["frames"] if f.get("function") in
                   ("read_all", "make_big")), "none") for g in big)
assert fns == ["make_big", "read_all"], fns
PY
echo "native_sample_grown: ok"
