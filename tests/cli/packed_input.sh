#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# packed_input.sh: a dump shipped in a compression leakray does not inflate (xz, zstd, lz4,
# a 7-Zip or zip archive) is exit 3 saying which, and that it is to be unpacked first (it
# was "unknown heap dump format" alone); gzip and bzip2 read as they are.
set -euo pipefail
. "$(dirname "$0")/lib/common.bash"
cli_init packed-input
snap=$LEAKRAY_SRC/tests/data/v8/cliques.heapsnapshot
# the formats' magic numbers, then the dump's bytes (no tool needed to make them)
for spec in 'xz-compressed fd377a585a00' 'zstd-compressed 28b52ffd' 'lz4-compressed 04224d18' \
    '7-Zip 377abcaf271c' 'zip 504b0304'; do
    read -r what magic <<<"$spec"
    { printf "$(sed 's/../\\x&/g' <<<"$magic")"; cat "$snap"; } >"$T/packed"
    run info --no-progress "$T/packed"
    expect_rc 3
    expect_err "unknown heap dump format: .*$what.*: unpack it first"
done
gzip -c "$snap" >"$T/snap.gz"
run info --no-progress "$T/snap.gz"
expect_rc 0
echo "packed_input: ok"
