#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# gen-cli-doc.sh [LEAKRAY]: prints docs/cli.md, every command's and tool's --help in one
# page, so that each option is documented where a reader searches, not only in a terminal.
# The common options and exit codes print once, at the top. tests/cli/cli_doc.sh fails when
# docs/cli.md differs from what this prints: regenerate it with
#   scripts/gen-cli-doc.sh build/leakray > docs/cli.md
set -euo pipefail
bin=${1:-$(dirname "$0")/../build/leakray}
list() { # the names under a help's "HEADING" line, up to the blank line after them
    awk -v h="$1" '$0 ~ "^" h {on = 1; next} on && /^  [a-z]/ {print $1} on && /^$/ {on = 0}'
}
# a verb's help without the common options block (printed once, at the top)
body() {
    awk '/^common options:$/ {skip = 1; next} skip && /^$/ {skip = 0; next} !skip' |
        grep -v '^exit codes: '
}
section() { # title, then the help text in a fence, no blank line twice or at its end
    printf '\n## `leakray %s`\n\n```text\n' "$1"
    cat -s | sed -e :a -e '/^\n*$/{$d;N;ba' -e '}'
    printf '```\n'
}
top=$("$bin" --help)
cat <<'HEAD'
# Command reference

Every command's `--help`, as `leakray` prints it (this page is generated from it by
`scripts/gen-cli-doc.sh`; the README shows the commands at work).

## Common options and exit codes

Every command takes these:

```text
HEAD
"$bin" info --help | awk '/^common options:$/ {on = 1} on && /^$/ {exit} on'
printf '\n'
"$bin" info --help | grep '^exit codes: '
printf '```\n\n## `leakray`\n\n```text\n%s\n```\n' "$top"
for v in $(list commands: <<<"$top"); do
    "$bin" "$v" --help | body | section "$v"
done
for t in $(list tools <<<"$top"); do
    h=$("$bin" "$t" --help)
    body <<<"$h" | section "$t"
    for s in $(list commands: <<<"$h"); do
        "$bin" "$t" "$s" --help | body | section "$t $s"
    done
done
