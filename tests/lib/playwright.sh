#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# playwright.sh: the one place browser tests get Chromium + playwright-core. Source it, then
#   pw_setup                 # Debian's chromium (scripts/deps.sh test installs it) and
#                            # playwright-core from npm, pinned, in a cache outside the repo
#   pw_node SCRIPT.js ARGS   # runs a node script that can require('playwright-core')
# A script launches the browser with pw.launch() from tests/lib/pw.js (same folder), which
# sets executablePath /usr/bin/chromium and the flags for a sandbox-less, offline, headless
# run with a fresh profile. Nothing is downloaded at view time and no browser build is
# fetched (`npx playwright install` is never used: only Debian's chromium).
# Environment: PW_CACHE overrides the install folder (default ~/.cache/leakray/playwright);
# LEAKRAY_SKIP_BROWSER=1 turns the tests that source this into skips (exit 77).
PW_VERSION=1.65.1
PW_CHROMIUM=${PW_CHROMIUM:-/usr/bin/chromium}
PW_LIB_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

pw_setup() {
    if [ "${LEAKRAY_SKIP_BROWSER:-0}" = 1 ]; then
        echo "skip: LEAKRAY_SKIP_BROWSER=1" >&2
        exit 77
    fi
    command -v node >/dev/null || { echo "playwright.sh: node not installed" >&2; return 1; }
    command -v npm >/dev/null || { echo "playwright.sh: npm not installed" >&2; return 1; }
    [ -x "$PW_CHROMIUM" ] || { echo "playwright.sh: no $PW_CHROMIUM (scripts/deps.sh test)" >&2; return 1; }
    local base=${PW_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/leakray/playwright}
    PW_DIR=$base/$PW_VERSION
    if [ ! -f "$PW_DIR/node_modules/playwright-core/package.json" ]; then
        mkdir -p "$base"
        # Tests run in parallel: one installs, the others wait for it.
        (
            flock 9
            if [ ! -f "$PW_DIR/node_modules/playwright-core/package.json" ]; then
                local tmp
                tmp=$(mktemp -d "$base/.install.XXXXXX")
                echo '{"private":true}' >"$tmp/package.json"
                if ! PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm install --prefix "$tmp" \
                        --no-audit --no-fund --no-save --silent \
                        "playwright-core@$PW_VERSION" >"$tmp/npm.log" 2>&1; then
                    cat "$tmp/npm.log" >&2
                    rm -rf "$tmp"
                    exit 1
                fi
                rm -rf "$PW_DIR"
                mv "$tmp" "$PW_DIR"
            fi
        ) 9>"$base/.lock" || { echo "playwright.sh: npm install playwright-core failed" >&2; return 1; }
    fi
    export NODE_PATH=$PW_DIR/node_modules${NODE_PATH:+:$NODE_PATH}
    export PW_CHROMIUM PW_LIB_DIR
    return 0
}

pw_node() {
    node "$@"
}
