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
