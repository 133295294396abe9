#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# cli_doc.sh: docs/cli.md is every command's --help as the binary prints it, so an option
# added to a verb is documented in the docs too (some were in --help only). Regenerate with
# scripts/gen-cli-doc.sh build/leakray > docs/cli.md.
set -euo pipefail
. "$(dirname "$0")/lib/common.bash"
cli_init cli-doc
"$LEAKRAY_SRC/scripts/gen-cli-doc.sh" "$LEAKRAY" > "$T/cli.md" || fail "gen-cli-doc.sh failed"
grep -q '^## `leakray histo`$' "$T/cli.md" || fail "no histo section generated"
grep -q '^## `leakray store ingest`$' "$T/cli.md" || fail "no store ingest section generated"
grep -q -- '--max-memory N' "$T/cli.md" || fail "common options missing"
diff -u "$LEAKRAY_SRC/docs/cli.md" "$T/cli.md" > "$T/diff" ||
    fail "docs/cli.md is not the binary's --help (scripts/gen-cli-doc.sh): $(head -20 "$T/diff")"
echo "cli_doc: ok"
