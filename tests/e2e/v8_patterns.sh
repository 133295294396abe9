#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# v8_patterns.sh: five leak patterns of a Node service, written at test time by
# tests/programs/node/v8_patterns.js (200 per pattern; baseline, target, final snapshots):
# - `analyze --watch CLASS --full` gives one group per pattern, every instance traced or also
#   retained, reached through the reference that leaks it (the closure's scope `blob`, the
#   listener's `state`, the Map's backing store, the interval's payload `p`, the pinning
#   array), never through a WeakRef or a FinalizationRegistry (weak);
# - the objects only a WeakRef and a FinalizationRegistry reached were collected: no
#   WeakTarget in the final snapshot, and --watch WeakTarget warns that the class is absent;
# - `histo` equals DevTools' Summary on the final snapshot and `diff target final` its
#   Comparison, class by class (DevTools' own code: heap-snapshot-toolkit from npm; that part
#   skips off CI when npm cannot install it).
set -euo pipefail
: "${LEAKRAY:?}" "${LEAKRAY_SRC:?}" "${LEAKRAY_BUILD:?}"
command -v node >/dev/null || { echo "SKIP: node not installed"; exit 77; }
command -v python3 >/dev/null || { echo "SKIP: python3 not installed"; exit 77; }
. "$LEAKRAY_SRC/tests/e2e/browser_lib.bash"
work="$LEAKRAY_BUILD/tmp/v8_patterns"
rm -rf "$work" && mkdir -p "$work"
fails=0
ok() { echo "ok: $*"; }
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }
node --expose-gc "$LEAKRAY_SRC/tests/programs/node/v8_patterns.js" "$work" 200
F=$work/final.heapsnapshot T=$work/target.heapsnapshot

for pair in ScopeBlob:blob ListenerState:state RequestRecord:table TickPayload:p \
    PinnedTarget:pinned; do
    c=${pair%%:*} via=${pair#*:}
    "$LEAKRAY" analyze "$F" --watch "$c" --full --json --no-timing --no-suspects \
        >"$work/$c.json"
    if python3 "$LEAKRAY_SRC/tests/e2e/watch_group.py" "$work/$c.json" "$c" "$via" 200 \
        --not-through target; then
        ok "analyze --watch $c: one group of 200, through $via"
    else
        bad "analyze --watch $c"
    fi
done

"$LEAKRAY" analyze "$F" --watch WeakTarget --no-timing --no-suspects >"$work/weak.txt" \
    2>"$work/weak.err" || true
grep -q 'WeakTarget' "$work/weak.err" && grep -q '^0 APPLICATION LEAKS$' "$work/weak.txt" \
    && ok "WeakTarget collected, --watch warns" || bad "WeakTarget ($(cat "$work/weak.err"))"

hst=$(browser_npm heap-snapshot-toolkit@1.1.3) ||
    browser_skip "npm cannot install heap-snapshot-toolkit"
gold=$work/golden
HST_DIR=$hst GOLDEN_OUT=$gold LEAKRAY_FIXTURES=$work/none \
    "$LEAKRAY_SRC/scripts/golden-devtools.sh" "$F" >/dev/null 2>&1
HST_DIR=$hst GOLDEN_OUT=$gold "$LEAKRAY_SRC/scripts/golden-devtools-diff.sh" "$T" "$F" \
    >/dev/null 2>&1
"$LEAKRAY" histo --json --no-timing "$F" >"$work/histo.json"
"$LEAKRAY" diff "$T" "$F" --json --no-timing >"$work/diff.json"
chk() { python3 "$LEAKRAY_SRC/tests/e2e/browser_check.py" "$@"; }
chk summary "$work/histo.json" "$gold/final.heapsnapshot.classes.tsv" \
    && ok "histo equals DevTools' Summary" || bad "histo against DevTools"
chk compare "$work/diff.json" "$gold/target--final.diff.tsv" \
    && ok "diff target -> final equals DevTools' Comparison" || bad "diff against DevTools"
[ "$fails" -eq 0 ] || { echo "$fails checks failed"; exit 1; }
