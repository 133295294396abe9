#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# stdin_input.sh: a dump read from a pipe. Dumps are read by mapping, and a pipe cannot be
# mapped, so `-` (standard input) and a pipe named as the input (a shell's <(...)) are
# copied into an unnamed temporary file first, within the same cap as inflated bytes.
#   - `cat DUMP | leakray VERB -` prints what `leakray VERB DUMP` prints (but the name) for
#     info, top, analyze --json, sql and histo (HPROF and V8), and `strip -` writes the same bytes (strip reads its
#     input twice: once checked by the reader, once copied);
#   - `leakray info - < DUMP` (a file on standard input is mapped as it is) and
#     `leakray info <(gzip -c DUMP)` (inflated after the copy, info says gzip);
#   - a stream past --max-inflate: exit 5 naming the cap; the copy leaves no file behind;
#   - a directory or a device as the input (and standard input from /dev/null): exit 4 saying
#     what it is; a named FIFO opened before its writer waits for it, 30 s at most (exit 4).
set -euo pipefail
. "$(dirname "$0")/lib/common.bash"
cli_init stdin-input
cli_fixtures
cp "$FIX/RI.hprof" "$T/RI.hprof"
f=$T/RI.hprof

same() { # VERB ARGS...: @ stands for the input; the file and a pipe print the same but its name
    local a=() b=() x
    for x in "$@"; do
        if [ "$x" = @ ]; then a+=("$f"); b+=(-); else a+=("$x"); b+=("$x"); fi
    done
    "$LEAKRAY" "${a[@]}" --no-timing | sed "s|$f|INPUT|g" >"$T/file.out" ||
        fail "$*: exit $? on the file"
    cat "$f" | "$LEAKRAY" "${b[@]}" --no-timing | sed 's|^\(Heap dump file path: \)-$|\1INPUT|;
        s|"-"|"INPUT"|g; s|^file: *-$|file:          INPUT|' >"$T/pipe.out" ||
        fail "$*: exit $? on a pipe"
    cmp -s "$T/file.out" "$T/pipe.out" ||
        fail "$*: a pipe prints otherwise: $(diff "$T/file.out" "$T/pipe.out" | head -5)"
}
same info @
same top @
same analyze --json @
same sql @ "select class, count(*), sum(retained) from objects group by class order by 3 desc"
same histo @
# histo tries its HPROF stream first; on a V8 snapshot from a pipe that try must not use up
# the bytes the graph load then needs
v8=$FIX/../v8/heap-2.heapsnapshot
if [ -f "$v8" ]; then
    f=$v8
    same histo @
    same histo --json @
    f=$T/RI.hprof
fi

"$LEAKRAY" strip -o "$T/a.hprof" "$f" >/dev/null || fail "strip FILE: exit $?"
cat "$f" | "$LEAKRAY" strip -o "$T/b.hprof" - >/dev/null || fail "strip -: exit $?"
cmp -s "$T/a.hprof" "$T/b.hprof" || fail "strip - wrote other bytes than strip FILE"

run info --no-timing - <"$f"
expect_rc 0
expect_out '^compression: +none, 1,819,716 bytes'
run info --no-timing <(gzip -c "$f")
expect_rc 0
expect_out '^compression: +gzip \([0-9,]+ on disk, 1,819,716 bytes'
run top --json --no-timing <(bzip2 -c "$f")
expect_rc 0
[ "$(json_get 'd["objects"][0]["retained"]')" -gt 0 ] || fail "top <(bzip2 -c): no rows"

# the cap: a stream longer than --max-inflate stops there, and its copy goes with the process
mkdir -p "$T/tmpdir"
rc=0
cat "$f" "$f" | "$LEAKRAY" info --no-progress --max-inflate 1M --tmpdir "$T/tmpdir" - \
    >/dev/null 2>"$T/err" || rc=$?
[ "$rc" = 5 ] || fail "stream past --max-inflate: exit $rc, want 5"
grep -q 'input read from a stream exceeds --max-inflate (1,048,576 bytes)' "$T/err" ||
    fail "stream past --max-inflate: $(head -1 "$T/err")"
[ -z "$(ls -A "$T/tmpdir")" ] || fail "the stream's copy was left in --tmpdir"

run info "$T"
expect_rc 4
expect_err 'the input is not a regular file nor a pipe \(a directory\)'
run info /dev/zero
expect_rc 4
expect_err '/dev/zero: the input is not a regular file nor a pipe \(a device\)'
rc=0
"$LEAKRAY" info - </dev/null >/dev/null 2>"$T/err" || rc=$?
[ "$rc" = 4 ] || fail "stdin from /dev/null: exit $rc, want 4"
grep -q -- '-: standard input is not a regular file nor a pipe (a device)' "$T/err" ||
    fail "stdin from /dev/null: $(head -1 "$T/err")"
mkfifo "$T/fifo"
# a named FIFO opened before its writer waits for it (it read as an empty dump at once, and
# the writer then blocked for ever)
( sleep 1; cat "$f" >"$T/fifo" ) &
writer=$!
rc=0
timeout 20 "$LEAKRAY" info --no-progress "$T/fifo" >"$T/out" 2>"$T/err" || rc=$?
wait "$writer" || true
[ "$rc" = 0 ] || fail "FIFO with a late writer: exit $rc: $(head -1 "$T/err")"
grep -q '^format: *hprof' "$T/out" || fail "FIFO with a late writer: $(head -3 "$T/out")"
# one whose writer never comes: a while, then exit 4 with what happened, no hang
rc=0
timeout 60 "$LEAKRAY" info --no-progress "$T/fifo" >/dev/null 2>"$T/err" || rc=$?
[ "$rc" = 4 ] || fail "FIFO without a writer: exit $rc, want 4"
grep -q 'fifo: no writer opened the FIFO in 30 s' "$T/err" || fail "FIFO: $(head -1 "$T/err")"
echo "ok: dumps from standard input and pipes read like files" >&2
