#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# node_detachedness.sh: Node 20+ writes V8's detachedness field and marks some of its own
# embedder objects detached (tests/programs/node/zlib_streams.js keeps 20 zlib streams: their
# `Detached Node / zlib_memory` and the like). A Node heap has no DOM: `info` and `histo`
# said "detached DOM: 79 objects, 8.7 MB" while `histo --detached` refused the same file for
# having no DOM. Now `info` calls the counts detachedness, `histo` V8's embedder flag, and
# `--detached` still refuses.
set -euo pipefail
: "${LEAKRAY:?}" "${LEAKRAY_SRC:?}" "${LEAKRAY_BUILD:?}"
. "$LEAKRAY_SRC/tests/e2e/need_lib.bash"
need_tools python3 node
work="$LEAKRAY_BUILD/tmp/node_detachedness"
rm -rf "$work"
mkdir -p "$work"
fail() { echo "FAIL: $*" >&2; exit 1; }
S=$work/zlib.heapsnapshot
node "$LEAKRAY_SRC/tests/programs/node/zlib_streams.js" "$S" || fail "node could not write $S"
"$LEAKRAY" info "$S" --json --no-timing >"$work/info.json" || fail "info --json"
python3 - "$work/info.json" <<'PY' || fail "Node marks no embedder object detached"
import json, sys
d = json.load(open(sys.argv[1]))
assert d['dom'] and d['dom']['detached'] >= 20 and d['dom']['attached'] == 0, d['dom']
print("ok:", d['dom']['detached'], "objects Node marks detached, none attached")
PY
"$LEAKRAY" info "$S" --no-timing >"$work/info.txt" || fail "info"
grep -q '^detachedness: .* detached (.*), V8.s embedder flag: no page, no DOM$' "$work/info.txt" &&
    ! grep -q '^DOM:' "$work/info.txt" || fail "info: $(grep -i detach "$work/info.txt")"
"$LEAKRAY" histo "$S" --no-timing >"$work/histo.txt" || fail "histo"
grep -q "^detached (V8's embedder flag; no DOM outside a page): " "$work/histo.txt" &&
    ! grep -q '^detached DOM' "$work/histo.txt" || fail "histo: $(tail -2 "$work/histo.txt")"
rc=0
"$LEAKRAY" histo "$S" --detached >/dev/null 2>"$work/det.err" || rc=$?
[ $rc = 2 ] && grep -q "no DOM" "$work/det.err" || fail "histo --detached: exit $rc"
echo "ok: info and histo call Node's detached objects no DOM; --detached refuses" >&2
echo "PASS"
