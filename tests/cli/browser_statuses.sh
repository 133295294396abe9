#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# browser_statuses.sh: a browser page's leak traces in the page's terms, on a snapshot laid out
# as Chromium writes one (written here: the (GC roots) -> (Global handles) -> context ->
# window chain of a page, DevTools' detachedness on each node):
#   - what the live page holds is `Leaking: NO` (rules/browser.rules): the context Chromium
#     marks attached, and the window object, which takes its context's state (@dom); so the
#     first suspect reference, and the group's title, is the page's own `window.kept`, not
#     V8's context -> window link that every trace of a page shares;
#   - an object the DevTools console holds (a page logged it) shows that reference with its
#     root, `(GC roots) / (Global handles) (17 / DevTools console)`, its trace having no
#     reference of its own to show;
#   - --no-shipped-rules leaves the window's statuses unknown (the rules are data).
set -euo pipefail
. "$(dirname "$0")/lib/common.bash"
cli_init browser-statuses

PYTHONPATH="$LEAKRAY_SRC/tests/lib" python3 - "$T/page.heapsnapshot" <<'PY'
import sys
from v8gen import write
# type, name, id, self size, detachedness (1 attached, 2 detached), edges (type, name, to)
nodes = [
    ("synthetic", "", 1, 0, 0, [("element", 1, 1)]),
    ("synthetic", "(GC roots)", 3, 0, 0, [("element", 1, 2)]),
    ("synthetic", "(Global handles)", 5, 0, 0, [("internal", "17 / DevTools console", 3),
                                                ("internal", "1 / blink::ScriptState", 4)]),
    ("native", "<section>", 7, 120, 2, []),
    ("object", "system / NativeContext / file://", 9, 800, 1, [("internal", "global_object", 5)]),
    ("object", "Window [JSGlobalObject] / file://", 11, 24, 0, [("property", "kept", 6)]),
    ("native", "<div>", 13, 96, 2, []),
]
write(sys.argv[1], nodes)
PY

run analyze --json --no-timing --no-suspects "$T/page.heapsnapshot"
expect_rc 0
titles='sorted(g["short_description"] for g in d["application_leaks"])'
statuses='[[e["leaking"] for e in t["elements"]] for t in d["traces"] if t["class"] == "Detached <div>"]'
roots='[t["gc_root"]["description"] for t in d["traces"] if t["class"] == "Detached <section>"]'
[ "$(json_get "$titles")" = '["Detached <section>", "Window [JSGlobalObject] / file://.kept"]' ] ||
    fail "group titles: $(json_get "$titles")"
[ "$(json_get "$statuses")" = '[["NO", "NO", "YES"]]' ] ||
    fail "statuses along window.kept: $(json_get "$statuses")"
[ "$(json_get "$roots")" = '["(GC roots) / (Global handles) (17 / DevTools console)"]' ] ||
    fail "console root: $(json_get "$roots")"
run analyze --no-timing --no-suspects "$T/page.heapsnapshot"
expect_out '^│    Leaking: NO \(attached: the live page holds it\)$'
expect_out '^│ GC Root: \(GC roots\) / \(Global handles\) \(17 / DevTools console\)$'
run analyze --json --no-timing --no-suspects --no-shipped-rules "$T/page.heapsnapshot"
[ "$(json_get "$statuses")" = '[["UNKNOWN", "UNKNOWN", "YES"]]' ] ||
    fail "--no-shipped-rules still marks the page's objects: $(json_get "$statuses")"
echo "ok: a browser page's traces start suspect at the page's own references" >&2
