#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# gzip_tmpfile.sh: compressed dumps are inflated into an unnamed temporary file that is
# mapped, so they cost page cache, not leakray's own memory. A real JVM writes a 70 MB dump
# that is mostly byte arrays (tests/programs/scale/ArrayHeap.java, few objects: the graph is
# small) and gzip shrinks it to about 1.5 MB:
#   - `info` on the .gz (bzip2 input takes the same path): own memory (RssAnon + RssShmem,
#     sampled) stays under a quarter of the inflated size (half under ASan; inflating into
#     anonymous memory costs all of it), and the output equals the plain dump's apart from
#     the compression line;
#   - --tmpdir DIR: the file goes there and nothing is left in DIR afterwards;
#   - --tmpdir to a missing folder: exit 4 naming it;
#   - a temporary filesystem without room (a file-size limit, ulimit -f): exit 5, "no room";
#   - on a terminal, inflating draws its own progress bar (a multi-gigabyte .gz showed nothing
#     for minutes), and with --no-progress or stderr not a terminal nothing.
set -euo pipefail
. "$(dirname "$0")/lib/common.bash"
cli_init gzip-tmpfile
cli_need_java
javac -d "$T/classes" "$LEAKRAY_SRC/tests/programs/scale/ArrayHeap.java"
java -Xmx256m -XX:+UseSerialGC -cp "$T/classes" ArrayHeap "$T/a.hprof" 64 >/dev/null
gzip -1 -c "$T/a.hprof" >"$T/a.hprof.gz"
inflated=$(stat -c %s "$T/a.hprof")
gz=$(stat -c %s "$T/a.hprof.gz")
[ "$inflated" -gt $((60 << 20)) ] && [ "$gz" -lt $((inflated / 8)) ] ||
    fail "test dump: $inflated bytes, $gz compressed"
own() { "$LEAKRAY_SRC/scripts/own-memory.py" "$T/peak" "$LEAKRAY" "$@" >"$T/out" 2>"$T/err"; }

run info --no-progress --no-timing "$T/a.hprof"
expect_rc 0
grep -v -e '^file:' -e '^compression:' "$T/out" >"$T/plain.info"
limit_kb=$((inflated / 4 / 1024))
# AddressSanitizer's runtime holds some 15 MB of its own: half the inflated size still tells
# the temporary file from anonymous memory (which costs all of it)
[[ $(ldd "$LEAKRAY" 2>/dev/null) == *libasan* ]] && limit_kb=$((inflated / 2 / 1024))
mkdir -p "$T/td"
for f in a.hprof.gz; do
    own info --no-progress --no-timing --tmpdir "$T/td" "$T/$f" || fail "info $f: exit $?"
    peak=$(cat "$T/peak")
    [ "$peak" -gt 0 ] && [ "$peak" -lt "$limit_kb" ] ||
        fail "$f: own memory $peak KB, want under $limit_kb KB (inflated $inflated bytes)"
    grep -v -e '^file:' -e '^compression:' "$T/out" | diff -u "$T/plain.info" - ||
        fail "$f: info differs from the plain dump's"
    [ -z "$(ls -A "$T/td")" ] || fail "$f: files left in --tmpdir: $(ls -A "$T/td")"
    echo "ok: $f ($inflated bytes inflated): own memory $peak KB" >&2
done

# a --tmpdir that cannot take a file is a usage error, said before anything is read (with
# --max-memory it read as a memory limit once a spill failed)
run info --no-progress --tmpdir "$T/missing" "$T/a.hprof.gz"
expect_rc 2
expect_err "\-\-tmpdir $T/missing: No such file or directory"
run top --no-progress --tmpdir "$T/missing" --max-memory 6M "$T/a.hprof.gz"
expect_rc 2

set +e
(ulimit -f $((8 << 10)); exec "$LEAKRAY" info --no-progress --tmpdir "$T/td" "$T/a.hprof.gz") \
    >"$T/out" 2>"$T/err"
RC=$?
set -e
expect_rc 5
expect_err "a\.hprof\.gz: no room in $T/td for the inflated dump"
[ -z "$(ls -A "$T/td")" ] || fail "files left in --tmpdir after the failure"
# 512 MiB of zeros behind a V8 snapshot's first key inflate for about a second (the head
# passes the check of the first bytes inflated); the bar's first frame waits 100 ms
{ printf '{"snapshot":'; head -c 512M /dev/zero; } | gzip -1 >"$T/zeros.gz"
tty_err() { # stderr of leakray ARGS... on a pseudo-terminal, stdout dropped
    python3 - "$LEAKRAY" "$@" <<'PY'
import os, pty, subprocess, sys
m, s = pty.openpty()
p = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=s)
os.close(s)
buf = b""
while True:
    try:
        d = os.read(m, 4096)
    except OSError:
        break
    if not d:
        break
    buf += d
p.wait()
sys.stdout.write(buf.decode("utf-8", "replace"))
PY
}
tty_err info --tmpdir "$T/td" "$T/zeros.gz" >"$T/tty"
grep -q 'inflating \[#' "$T/tty" || fail "no inflating bar on a terminal: $(tail -c 300 "$T/tty")"
grep -q 'zeros\.gz: offset 0x[0-9a-f]*: ' "$T/tty" || fail "zeros: $(tail -c 300 "$T/tty")"
tty_err info --no-progress --tmpdir "$T/td" "$T/zeros.gz" >"$T/tty"
grep -q 'inflating' "$T/tty" && fail "--no-progress drew a bar"
run info --tmpdir "$T/td" "$T/zeros.gz"
grep -q 'inflating' "$T/err" && fail "a bar on a stderr that is no terminal"
echo "gzip_tmpfile: ok"
