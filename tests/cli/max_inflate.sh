#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# max_inflate.sh: --max-inflate caps decompressed input: a gzip dump larger than the cap
# stops with exit 5 (resource limit) naming the file; K/M/G suffixes are accepted and a
# generous cap loads normally.
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
echo "max_inflate: ok"
