# SPDX-License-Identifier: Apache-2.0
# browser_lib.bash: headless Chromium and npm tools for the tests/e2e/browser_*.sh scripts
# (sourced). Debian's chromium is installed by scripts/deps.sh test (apt-get here when it is
# missing and we are root); npm packages go to a cache folder outside the repository,
# $LEAKRAY_NPM_CACHE (default ~/.cache/leakray-npm), one folder per package@version.
#   browser_need_chromium        CHROMIUM=path, or skip (77; fail when CI=true)
#   browser_npm PKG@VER          echoes the folder holding node_modules/PKG, installing it once
#   browser_skip MSG             exit 77 with MSG, or exit 1 when CI=true

browser_skip() {
    if [ "${CI:-}" = true ]; then echo "FAIL (CI): $*"; exit 1; fi
    echo "SKIP: $*"
    exit 77
}

browser_need_chromium() {
    CHROMIUM=${CHROMIUM:-/usr/bin/chromium}
    if [ ! -x "$CHROMIUM" ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
        echo "installing Debian's chromium" >&2
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
            chromium >/dev/null 2>&1 ||
            { apt-get update -qq >/dev/null 2>&1 &&
              DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
                chromium >/dev/null 2>&1; } || true
    fi
    [ -x "$CHROMIUM" ] || browser_skip "chromium cannot be installed (scripts/deps.sh test)"
    command -v node >/dev/null 2>&1 || browser_skip "node is not installed"
    command -v npm >/dev/null 2>&1 || browser_skip "npm is not installed"
    export CHROMIUM
}

browser_npm() {
    local spec=$1 dir
    dir=${LEAKRAY_NPM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/leakray-npm}/${spec//\//_}
    if [ ! -f "$dir/node_modules/${spec%@*}/package.json" ]; then
        mkdir -p "$dir"
        [ -f "$dir/package.json" ] || echo '{"name": "leakray-test-tools", "private": true}' \
            >"$dir/package.json"
        (cd "$dir" &&
            PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm install --no-audit --no-fund "$spec" \
                >npm-install.log 2>&1) || { cat "$dir/npm-install.log" >&2 || true; return 1; }
    fi
    echo "$dir"
}
