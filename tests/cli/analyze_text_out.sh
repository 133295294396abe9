#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# analyze_text_out.sh: `analyze --json --text OUT` writes both reports from one analysis (the
# JVM agent's pair: `watch analyze` ran two analyses side by side, each loading the dump),
# each byte-identical to the one its own run writes; --text refuses stdout and the input.
set -euo pipefail
. "$(dirname "$0")/lib/common.bash"
cli_init analyze-text-out
cli_fixtures
dump=$FIX/RI.hprof
run analyze --json --no-timing --text "$T/both.txt" "$dump"
expect_rc 0
cp "$T/out" "$T/both.json"
run analyze --no-timing "$dump"
expect_rc 0
cmp -s "$T/out" "$T/both.txt" || fail "--text differs from the text report"
run analyze --json --no-timing "$dump"
expect_rc 0
cmp -s "$T/out" "$T/both.json" || fail "--json with --text differs from --json alone"
run analyze --json --text - "$dump"
expect_rc 2
expect_err "would mix two reports on stdout"
run analyze --text "$dump" "$dump"
expect_rc 2
expect_err "is the input file"
run analyze --no-timing --text "$T/no/such/dir.txt" "$dump"
expect_rc 4
expect_err "no/such/dir.txt: No such file or directory"
# under --json the error is the one document (the report, then an error object, were two)
run analyze --json --no-timing --text "$T/no/such/dir.txt" "$dump"
expect_rc 4
python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); assert "error" in d and "mode" not in d, list(d)' \
    "$T/out" || fail "analyze --json --text unwritable: $(head -c 300 "$T/out")"
echo "analyze_text_out: ok"
