#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# help.sh: `leakray --help` lists every verb, and `leakray VERB --help` prints that verb's
# usage on stdout with exit 0 (for every verb in the table, including ones added later).
set -euo pipefail
. "$(dirname "$0")/lib/common.bash"
cli_init help

run --help
expect_rc 0
expect_out '^usage: leakray <command>'
[ ! -s "$T/err" ] || fail "--help wrote to stderr"
verbs=$(awk '/^commands:/ {on = 1; next} on && /^  [a-z]/ {print $1} on && /^$/ {on = 0}' "$T/out")
for v in info histo show; do
    grep -qx "$v" <<<"$verbs" || fail "verb $v missing from leakray --help"
done

for v in $verbs; do
    for h in --help -h; do
        run "$v" "$h"
        expect_rc 0
        grep -q "^usage: leakray $v " "$T/out" || fail "$v $h: no usage line on stdout"
        grep -q -- '--json' "$T/out" || fail "$v $h: common options not listed"
        [ ! -s "$T/err" ] || fail "$v $h wrote to stderr"
    done
    # --help wins over everything else on the line, even a missing file.
    run "$v" /nonexistent/file --help
    expect_rc 0
done

# Tools (no dump argument): their own --help lists commands, each command's --help the
# common options.
tools=$(awk '/^tools/ {on = 1; next} on && /^  [a-z]/ {print $1} on && /^$/ {on = 0}' \
    <("$LEAKRAY" --help))
grep -qx store <<<"$tools" || fail "tool store missing from leakray --help"
for t in $tools; do
    run "$t" --help
    expect_rc 0
    subs=$(awk '/^commands:/ {on = 1; next} on && /^  [a-z]/ {print $1} on && /^$/ {on = 0}' \
        "$T/out")
    if [ -z "$subs" ]; then
        # a single-command tool (attach PID): its own usage line and the common options
        grep -q "^usage: leakray $t " "$T/out" || fail "$t --help: no commands, no usage line"
        grep -q -- '--json' "$T/out" || fail "$t --help: common options not listed"
        continue
    fi
    for s in $subs; do
        run "$t" "$s" --help
        expect_rc 0
        grep -q "^usage: leakray $t $s" "$T/out" || fail "$t $s --help: no usage line"
        grep -q -- '--json' "$T/out" || fail "$t $s --help: common options not listed"
    done
    run "$t" no-such-command
    expect_rc 2
done

run help histo
expect_rc 0
expect_out '^usage: leakray histo '
run --version
expect_rc 0
expect_out '^leakray [0-9]+\.[0-9]+\.[0-9]+$'
echo "help: $(wc -w <<<"$verbs") verbs checked"
