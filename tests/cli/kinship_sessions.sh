#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# kinship_sessions.sh: two snapshots each taken through a new inspector session are refused
# by the id-following verbs (exit 2, --force to go on), whatever the heap's size. V8
# numbers the heap afresh per session; on a big heap that did not change 96 % of the shared
# ids kept their class by heap order alone, so the one-process check passed and `leaks`
# named the program's never-changing objects as its top leaks. A string never changes its
# text, and only 7 % of them kept it (tests/programs/node/inspector_sessions.js). Snapshots
# of one session (v8.writeHeapSnapshot twice) still compare.
set -euo pipefail
. "$(dirname "$0")/lib/common.bash"
cli_init kinship-sessions
command -v node >/dev/null || skip "no node"
node --expose-gc "$LEAKRAY_SRC/tests/programs/node/inspector_sessions.js" "$T/s" 600000
run leaks --baseline "$T/s-1.heapsnapshot" --target "$T/s-2.heapsnapshot" --no-timing
expect_rc 2
expect_err 'strings present in both by id, only [0-9]+% keep their text'
expect_err 'new inspector session'
run diff "$T/s-1.heapsnapshot" "$T/s-2.heapsnapshot" --no-timing
expect_rc 2
run leaks --baseline "$T/s-1.heapsnapshot" --target "$T/s-2.heapsnapshot" --no-timing --force
expect_rc 0
node --expose-gc -e "const v8 = require('v8'); globalThis.keep = [];
    for (let i = 0; i < 2000; i++) keep.push({i, s: 'text' + i});
    v8.writeHeapSnapshot('$T/w-1.heapsnapshot'); global.gc();
    v8.writeHeapSnapshot('$T/w-2.heapsnapshot')"
run leaks --baseline "$T/w-1.heapsnapshot" --target "$T/w-2.heapsnapshot" --no-timing
expect_rc 0
echo "kinship_sessions: ok"
