#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# max_inflate.sh: --max-inflate caps decompressed input: a gzip dump larger than the cap
# stops with exit 5 (resource limit) naming the file; K/M/G suffixes are accepted and a
# generous cap loads normally. A small compressed file that inflates to something else than a
# dump is refused on its first inflated bytes (exit 3), before the rest is written: 64 MB of
# zeros (a 64 KB gzip, a 48-byte bzip2) read as an unknown format only once inflated whole
# (a 785-byte bzip2 wrote 1 GiB to the temporary folder), or stopped at the cap.
set -euo pipefail
. "$(dirname "$0")/lib/common.bash"
cli_init inflate
cli_fixtures
f=$FIX/java_pid1884.0001.hprof.gz

run histo --max-inflate 64K "$f"
expect_rc 5
expect_err "java_pid1884\.0001\.hprof\.gz"
run histo --json --max-inflate=1M "$f"
expect_rc 5
json_eq 'd["error"]["code"]' limit
json_eq 'd["error"]["exit"]' 5
run histo --no-timing --max-inflate 1G --top 3 "$f"
expect_rc 0
expect_out '^Total '

head -c 64M /dev/zero | gzip -c >"$T/zeros.gz"
head -c 64M /dev/zero | bzip2 -c >"$T/zeros.bz2"
head -c 64M /dev/zero | tr '\0' ' ' | gzip -c >"$T/spaces.gz" # blank: no dump begins so
for z in zeros.gz zeros.bz2 spaces.gz; do
    for verb in info histo; do
        run "$verb" --max-inflate 32M "$T/$z"
        expect_rc 3
        expect_err 'first [0-9]+ bytes inflated are no heap dump \(the rest was not inflated\)'
    done
done
# a real dump's head passes: a V8 snapshot and an HPROF dump, gzip'd, load whole
run info --no-timing "$FIX/../v8/snapshot1.heapsnapshot.gz"
expect_rc 0
echo "max_inflate: ok"
