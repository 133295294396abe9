#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# identity.sh: every verb's output stays byte for byte what it was. The manifest
# (tests/e2e/expected/identity/manifest.txt, written by scripts/identity-goldens.sh from the
# reference binary) holds one sha256 per command -- each verb in text and --json over every
# dump fixture plus the main option variants -- over stdout, stderr and the exit code. Any
# difference fails and names the commands, so moving presentation code between layers is
# verified rather than assumed. Under ASan+UBSan one command in three runs (the release build
# runs them all).
set -euo pipefail
: "${LEAKRAY:?}" "${LEAKRAY_SRC:?}" "${LEAKRAY_BUILD:?}"
fx="${LEAKRAY_FIXTURES:-$LEAKRAY_SRC/../shared/fixtures}"
if [ ! -f "$fx/hprof/SOURCES.md" ] || [ ! -f "$fx/v8/SOURCES.md" ]; then
    if [ "${CI:-}" = true ]; then echo "FAIL: fixtures missing in $fx" >&2; exit 1; fi
    echo "SKIP: fixtures not found in $fx"
    exit 77
fi
manifest=$LEAKRAY_SRC/tests/e2e/expected/identity/manifest.txt
work="$LEAKRAY_BUILD/tmp/identity"
rm -rf "$work"
mkdir -p "$work"
every=1
if grep -qa __asan_init "$LEAKRAY"; then
    every=3
fi
# IDENTITY_VERBS="histo top" checks those verbs only (while working on them).
awk -v e="$every" -v verbs=" ${IDENTITY_VERBS:-} " \
    '(NR - 1) % e == 0 && (verbs == "  " || index(verbs, " " $2 " "))' "$manifest" \
    >"$work/expected"
n=$(wc -l <"$work/expected")
[ "$n" -gt 100 ] || [ -n "${IDENTITY_VERBS:-}" ] || { echo "FAIL: manifest has only $n commands" >&2; exit 1; }
python3 "$LEAKRAY_SRC/tests/e2e/identity.py" "$LEAKRAY" "$LEAKRAY_SRC" "$fx" "$work/run" \
    "$work/expected" "$work/actual"
if ! cmp -s "$work/expected" "$work/actual"; then
    echo "FAIL: output changed (these commands print something else than the manifest says):" >&2
    diff "$work/expected" "$work/actual" | sed -n 's/^> [0-9a-f]* /  /p' | head -50 >&2
    echo "(regenerate only for an intended change: scripts/identity-goldens.sh)" >&2
    exit 1
fi
echo "ok: $n commands byte-identical"
