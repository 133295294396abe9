#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# usage_errors.sh: command-line mistakes exit 2 with one line on stderr (the problem, then
# "(see leakray VERB --help)") and nothing on stdout; under --json the error object is on
# stdout with code "usage". Only `leakray` alone prints the command list.
set -euo pipefail
. "$(dirname "$0")/lib/common.bash"
cli_init usage

run
expect_rc 2
expect_err '^usage: leakray <command>'

run frobnicate x.hprof
expect_rc 2
expect_err "^leakray: unknown command 'frobnicate' \(see leakray --help\)$"
[ "$(wc -l <"$T/err")" = 1 ] || fail "unknown command: more than one line on stderr"
[ ! -s "$T/out" ] || fail "unknown command wrote to stdout"

for v in info histo show; do
    run "$v" --frobnicate x.hprof
    expect_rc 2
    expect_err "^leakray $v: unknown option '--frobnicate' \(see leakray $v --help\)$"
    [ "$(wc -l <"$T/err")" = 1 ] || fail "$v: usage error is more than one line"
    [ ! -s "$T/out" ] || fail "$v: usage error wrote to stdout"

    run "$v"
    expect_rc 2
    expect_err "missing argument"
done

run histo --top x.hprof
expect_rc 2
expect_err "invalid value 'x.hprof' for --top"
run histo x.hprof --top
expect_rc 2
expect_err "option --top needs a value"
run histo --sort size x.hprof
expect_rc 2
expect_err "invalid value 'size' for --sort \(one of shallow\|count\|name\|retained\)"
run histo --json=1 x.hprof
expect_rc 2
expect_err "option --json takes no value"
run histo a.hprof b.hprof
expect_rc 2
expect_err "unexpected argument 'b.hprof'"
run info --max-inflate 12Q x.hprof
expect_rc 2
expect_err "invalid value '12Q' for --max-inflate"
run info --dump -1 x.hprof
expect_rc 2
run show x.hprof
expect_rc 2
run show x.hprof 0xZZ
expect_rc 2
expect_err "'0xZZ' is not an object id"

# Under --json the same mistake is also reported as a JSON error object on stdout.
run histo --json --frobnicate x.hprof
expect_rc 2
json_eq 'd["schema_version"]' 2
json_eq 'd["error"]["code"]' usage
json_eq 'd["error"]["exit"]' 2
json_eq 'd["error"]["offset"]' null
json_eq '"--frobnicate" in d["error"]["message"]' true

# A size model for another kind of heap is refused, both ways round: VisualVM's follows a
# Java heap's fields (on a snapshot it reached 33 of 39,219 objects), DevTools' a V8 graph.
V8=${LEAKRAY_FIXTURES:-$LEAKRAY_SRC/../shared/fixtures}/v8/heap-1.heapsnapshot
HP=${LEAKRAY_FIXTURES:-$LEAKRAY_SRC/../shared/fixtures}/hprof/RI.hprof
if [ -f "$V8" ] && [ -f "$HP" ]; then
    for v in top instances sql; do
        extra=()
        [ "$v" = instances ] && extra=(Object)
        [ "$v" = sql ] && extra=("SELECT 1")
        run "$v" --model visualvm "$V8" "${extra[@]}"
        expect_rc 2
        expect_err "^leakray $v: --model visualvm needs an HPROF dump"
        [ "$v" = instances ] && extra=(java.lang.String)
        run "$v" --model devtools "$HP" "${extra[@]}"
        expect_rc 2
        expect_err "^leakray $v: --model devtools needs a V8/Node/ArkTS heap snapshot"
    done
fi
# the agent's options given as words apart: say they are one comma-separated word
set +e
"$LEAKRAY" attach 1 dump-dir=/tmp threshold=3 >/dev/null 2>"$T/attach.err"
rc=$?
set -e
[ $rc = 2 ] && grep -q "one word, comma-separated" "$T/attach.err" ||
    fail "attach with options apart: exit $rc, $(cat "$T/attach.err")"
# an option a verb would accept and ignore is refused: strip rewrites every heap dump
run strip x.hprof -o y.hprof --dump 1
expect_rc 2
expect_err "^leakray strip: strip rewrites every heap dump of the file; --dump has no effect"
# too many arguments: path says how many ids it takes and how to give more; store ingest
# takes thousands of inputs at once (it stopped at 64, the whole batch refused)
run path x.hprof $(seq 1 64)
expect_rc 2
expect_err "unexpected argument '64': at most 63 ids after FILE \(--ids FILE takes any number\)"
small=${LEAKRAY_FIXTURES:-$LEAKRAY_SRC/../shared/fixtures}/v8/small.heapsnapshot
for i in $(seq 1 70); do ln -sf "$small" "$T/in$i.heapsnapshot"; done
run store ingest --db "$T/many.db" --app a --at 2026-01-02 "$T"/in*.heapsnapshot
expect_rc 0
[ "$(grep -c 'stored' "$T/out")" = 70 ] || fail "70 inputs: $(tail -3 "$T/out")"
run store ingest --db "$T/many.db" $(seq 1 4097)
expect_rc 2
expect_err "at most 4096 arguments \(xargs -n 4096 runs more in batches\)"
# --detached on a heap with no DOM: refused by every verb that takes it (analyze and report
# accepted it and found nothing, histo and leaks refused)
hprof=${LEAKRAY_FIXTURES:-$LEAKRAY_SRC/../shared/fixtures}/hprof/test-dump.hprof
for v in analyze report; do
    run $v "$hprof" --detached -o "$T/d.html"
    [ $v = report ] || run $v "$hprof" --detached
    expect_rc 2
    expect_err "^leakray $v: --detached needs a V8 snapshot of a browser page"
done
# and on a V8 heap with no document (the V8 shell's; Node.js's): every verb found no detached DOM, or
# listed Node's own binding objects that the snapshot marks detached, and exited 0
node=${LEAKRAY_FIXTURES:-$LEAKRAY_SRC/../shared/fixtures}/v8/heap-1.heapsnapshot
for v in analyze histo top clusters report diff; do
    case $v in
    report) run $v "$node" --detached -o "$T/d.html" ;;
    diff) run $v "$node" "$node" --detached ;;
    *) run $v "$node" --detached ;;
    esac
    expect_rc 2
    expect_err "^leakray $v: --detached needs a V8 snapshot of a browser page; no object in .*heap-1"
done
echo "usage_errors: ok"
