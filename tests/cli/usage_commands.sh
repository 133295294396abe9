#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# usage_commands.sh: the verbs with commands of their own (native, store, watch) answer a
# missing or unknown command as every verb answers a usage mistake: exit 2, one line on stderr
# ending "(see leakray VERB --help)", nothing on stdout; their command list is --help's.
set -euo pipefail
. "$(dirname "$0")/lib/common.bash"
cli_init usage_commands

for v in native store watch; do
    run "$v"
    expect_rc 2
    expect_err "^leakray $v: missing command \(expected .*\) \(see leakray $v --help\)$"
    [ "$(wc -l <"$T/err")" = 1 ] || fail "$v: missing command is more than one line"
    [ ! -s "$T/out" ] || fail "$v: missing command wrote to stdout"
    run "$v" frobnicate
    expect_rc 2
    expect_err "^leakray $v: unknown command 'frobnicate' \(see leakray $v --help\)$"
    [ "$(wc -l <"$T/err")" = 1 ] || fail "$v: unknown command is more than one line"
    [ ! -s "$T/out" ] || fail "$v: unknown command wrote to stdout"
    run "$v" --help
    expect_rc 0
    grep -q "^usage: leakray $v <command>" "$T/out" || fail "$v --help: no usage on stdout"
done
echo "usage_commands: ok"
