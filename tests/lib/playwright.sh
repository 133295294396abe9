#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# playwright.sh: the one place tests and benchmarks get Chromium and npm packages
# (playwright-core, DevTools' heap-snapshot-toolkit, ...). Source it, then
#   pw_setup                 # Debian's chromium + playwright-core, NODE_PATH set for it
#   pw_node SCRIPT.js ARGS   # runs a node script that can require('playwright-core')
#   pw_chromium              # Debian's chromium only (PW_CHROMIUM); apt-get when root
#   pw_npm PKG@VER           # echoes a folder holding node_modules/PKG, installed once
# A script launches the browser with pw.launch() from tests/lib/pw.js (same folder), which
# sets executablePath to PW_CHROMIUM and the flags for a sandbox-less, offline, headless run
# with a fresh profile. No browser build is ever fetched (`npx playwright install` is never
# used), and the page under test is never allowed the network.
# npm packages live outside the repository, one folder per PKG@VER under PW_CACHE (default
# ~/.cache/leakray/npm); parallel tests install each package once, under a lock, and a
# folder appears only complete (installed in a temporary folder, then renamed).
# Failures return 1 with a message on stderr; callers decide between failing and skipping.
# LEAKRAY_SKIP_BROWSER=1 makes pw_setup and pw_chromium exit 77 (a ctest skip).
PW_VERSION=1.65.1
PW_CHROMIUM=${PW_CHROMIUM:-${CHROMIUM:-/usr/bin/chromium}}
PW_LIB_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

pw_npm() {
    local spec=$1 base dir
    base=${PW_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/leakray/npm}
    dir=$base/${spec//\//_}
    command -v npm >/dev/null || { echo "playwright.sh: npm not installed" >&2; return 1; }
    if [ ! -f "$dir/node_modules/${spec%@*}/package.json" ]; then
        mkdir -p "$base" || return 1
        (
            flock 9
            if [ ! -f "$dir/node_modules/${spec%@*}/package.json" ]; then
                tmp=$(mktemp -d "$base/.install.XXXXXX") || exit 1
                echo '{"private":true}' >"$tmp/package.json"
                if ! PUPPETEER_SKIP_DOWNLOAD=1 PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm install --prefix "$tmp" \
                        --no-audit --no-fund --no-save --silent "$spec" \
                        >"$tmp/npm.log" 2>&1; then
                    cat "$tmp/npm.log" >&2
                    rm -rf "$tmp"
                    exit 1
                fi
                rm -rf "$dir"
                mv "$tmp" "$dir"
            fi
        ) 9>"$base/.lock" || { echo "playwright.sh: npm install $spec failed" >&2; return 1; }
    fi
    printf '%s\n' "$dir"
}

pw_chromium() {
    if [ "${LEAKRAY_SKIP_BROWSER:-0}" = 1 ]; then
        echo "skip: LEAKRAY_SKIP_BROWSER=1" >&2
        exit 77
    fi
    if [ ! -x "$PW_CHROMIUM" ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
        echo "installing Debian's chromium" >&2
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
            chromium >/dev/null 2>&1 ||
            { apt-get update -qq >/dev/null 2>&1 &&
              DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
                chromium >/dev/null 2>&1; } || true
    fi
    [ -x "$PW_CHROMIUM" ] ||
        { echo "playwright.sh: no $PW_CHROMIUM (scripts/deps.sh test)" >&2; return 1; }
    command -v node >/dev/null || { echo "playwright.sh: node not installed" >&2; return 1; }
    export PW_CHROMIUM CHROMIUM=$PW_CHROMIUM
}

pw_setup() {
    pw_chromium || return 1
    PW_DIR=$(pw_npm "playwright-core@$PW_VERSION") || return 1
    export NODE_PATH=$PW_DIR/node_modules${NODE_PATH:+:$NODE_PATH}
    export PW_LIB_DIR
}

pw_node() {
    node "$@"
}
