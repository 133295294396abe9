#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# byte_stable.sh: with --no-timing two runs print identical bytes for every verb here, and
# with stderr not a terminal nothing (no progress bar) is written to stderr on success.
set -euo pipefail
. "$(dirname "$0")/lib/common.bash"
cli_init stable
cli_fixtures
f=$FIX/RI.hprof
for args in "info" "histo" "histo --json" "info --json" "show --json" "show"; do
    extra=()
    case $args in show*) extra=(0x500004e8) ;; esac
    # shellcheck disable=SC2086
    run $args --no-timing "$f" "${extra[@]}"
    expect_rc 0
    [ ! -s "$T/err" ] || fail "$args: stderr not empty without a TTY"
    cp "$T/out" "$T/first"
    # shellcheck disable=SC2086
    run $args --no-timing "$f" "${extra[@]}"
    cmp -s "$T/first" "$T/out" || fail "$args: two runs differ"
    grep -qiE 'load time|timing' "$T/out" && fail "$args: timing printed under --no-timing"
    case $args in *--json*) python3 -m json.tool "$T/out" >/dev/null || fail "$args: invalid JSON" ;; esac
done
echo "byte_stable: ok"
