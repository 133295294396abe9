# SPDX-License-Identifier: Apache-2.0
# browser_lib.bash: what the tests/e2e/browser_*.sh scripts share (sourced): Chromium and npm
# packages come from tests/lib/playwright.sh, the one installer; this file only turns its
# failures into a skip off CI and a failure under CI=true.
#   browser_need_chromium        CHROMIUM=path of Debian's chromium, node present
#   browser_npm PKG@VER          echoes the folder holding node_modules/PKG, installing it once
#   browser_skip MSG             exit 77 with MSG, or exit 1 when CI=true
. "$LEAKRAY_SRC/tests/lib/playwright.sh"

browser_skip() {
    if [ "${CI:-}" = true ]; then echo "FAIL (CI): $*"; exit 1; fi
    echo "SKIP: $*"
    exit 77
}

browser_need_chromium() {
    pw_chromium || browser_skip "chromium or node cannot be had (scripts/deps.sh test)"
    command -v npm >/dev/null 2>&1 || browser_skip "npm is not installed"
}

browser_npm() {
    pw_npm "$1"
}

# browser_analyze_detached F WORK: `analyze` with no --watch on the final page snapshot traces
# the detached DOM nodes still retained (memlab's find-leaks): one group of the 250 panels, all
# detached bytes; --no-detached turns that off; --watch takes DevTools' class names as they
# are. Uses the caller's ok, bad and chk.
browser_analyze_detached() {
    local F=$1 work=$2
    "$LEAKRAY" analyze "$F" --json --no-timing --no-suspects >"$work/an.json"
    "$LEAKRAY" histo --detached --json --no-timing "$F" >"$work/andet.json"
    chk traced "$work/an.json" "$work/andet.json" \
        && ok "analyze: 250 detached panels traced, one group, all detached bytes" \
        || bad "analyze detached DOM"
    "$LEAKRAY" analyze "$F" --no-detached --no-timing --no-suspects >"$work/an0.txt"
    grep -q '^0 APPLICATION LEAKS$' "$work/an0.txt" && ok "analyze --no-detached: no leak" \
        || bad "analyze --no-detached"
    "$LEAKRAY" analyze "$F" --watch 'Detached <li>' --json --no-timing --no-suspects \
        >"$work/anli.json" 2>"$work/anli.err" || true
    chk watched "$work/anli.json" \
        && ok "analyze --watch 'Detached <li>': the 1,250 items, traced or also retained" \
        || bad "analyze --watch 'Detached <li>' ($(cat "$work/anli.err"))"
}
