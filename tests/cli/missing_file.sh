#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# missing_file.sh: an input that cannot be opened exits 4 (I/O) for every verb that reads a
# file, naming the file; under --json the error object says code "io", exit 4.
set -euo pipefail
. "$(dirname "$0")/lib/common.bash"
cli_init missing
missing=$T/no-such-dump.hprof

for v in info histo; do
    run "$v" "$missing"
    expect_rc 4
    expect_err "^leakray: .*no-such-dump\.hprof"
    [ ! -s "$T/out" ] || fail "$v: error wrote to stdout"
done
run show "$missing" 0x1
expect_rc 4

run histo --json "$missing"
expect_rc 4
json_eq 'd["schema_version"]' 2
json_eq 'd["error"]["code"]' io
json_eq 'd["error"]["exit"]' 4
json_eq '"no-such-dump.hprof" in d["error"]["message"]' true
json_eq 'sorted(d["error"].keys())' '["code", "exit", "message", "offset"]'

# A directory is not a dump either.
run info "$T"
[ "$RC" = 4 ] || [ "$RC" = 3 ] || fail "directory input exited $RC, expected 3 or 4"
echo "missing_file: ok"
