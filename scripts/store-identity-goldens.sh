#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# store-identity-goldens.sh [LEAKRAY]: regenerates tests/e2e/expected/store/identity.txt and
# dashboard.html, the transcript tests/e2e/store_identity.sh holds the leak store's verbs to.
# Run it with the binary whose output is the reference (today's main), and only when an
# output change is intended. The transcript is written twice and refused when the two runs
# differ (an output that is not deterministic cannot be a golden file).
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
bin=$(realpath "${1:-$src/build/leakray}")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
run() {
    LEAKRAY=$bin LEAKRAY_SRC=$src LEAKRAY_BUILD=$1 LEAKRAY_UPDATE_GOLDEN= \
        bash "$src/tests/e2e/store_identity.sh" >/dev/null 2>&1 || true
}
run "$work/a"
run "$work/b"
for f in identity.txt dashboard.html; do
    [ -s "$work/a/tmp/store_identity/$f" ] || { echo "no $f written" >&2; exit 1; }
    cmp -s "$work/a/tmp/store_identity/$f" "$work/b/tmp/store_identity/$f" ||
        { echo "$f differs between two runs: not deterministic" >&2; exit 1; }
done
mkdir -p "$src/tests/e2e/expected/store"
cp "$work/a/tmp/store_identity/identity.txt" "$work/a/tmp/store_identity/dashboard.html" \
    "$src/tests/e2e/expected/store/"
echo "written: tests/e2e/expected/store/identity.txt, dashboard.html"
