#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# atomic_outputs.sh: every file leakray writes is complete or absent, and nothing it was not
# asked to replace is touched.
#   - `strip X -o X`, `convert X -o X`, `analyze X --html X` and `report --db S -o S` (a
#     hard link to S too): exit 2, X and S unchanged; a report replacing a 0600 file is 0600;
#   - `strip` to a FIFO no process reads: exit 4 at once (no hang); to one a process reads,
#     and to /dev/null: written as a stream, the same bytes as the file;
#   - `strip` of a dump the reader rejects (cut inside a record): exit 3, no output;
#   - `dupes --export-png` with a file-size limit below the PNG's size (ulimit -f 1): the
#     write fails (EFBIG: SIGXFSZ is ignored), and neither a partial PNG nor a temporary stays
#     behind; `strip` says "File too large", exit 4;
#   - SIGINT, SIGTERM and SIGHUP delivered while strip writes (gdb stops it before the rename):
#     no output and no temporary left.
set -euo pipefail
: "${LEAKRAY:?}" "${LEAKRAY_SRC:?}" "${LEAKRAY_BUILD:?}"
fix=${LEAKRAY_FIXTURES:-$LEAKRAY_SRC/../shared/fixtures}/hprof
if [ ! -d "$fix" ]; then
    [ "${CI:-}" = true ] && { echo "FAIL: no fixtures at $fix (required under CI=true)"; exit 1; }
    echo "SKIP: no HPROF fixtures at $fix"
    exit 77
fi
tmp=$LEAKRAY_BUILD/tmp/atomic_outputs
rm -rf "$tmp"
mkdir -p "$tmp"
fail() { echo "FAIL: $*" >&2; exit 1; }
cp "$fix/sun_jdk6_18_x64.hprof" "$tmp/d.hprof"
sum=$(md5sum <"$tmp/d.hprof")

for verb in strip convert; do
    rc=0; "$LEAKRAY" "$verb" "$tmp/d.hprof" -o "$tmp/d.hprof" >/dev/null 2>"$tmp/same.err" || rc=$?
    [ "$rc" = 2 ] || fail "$verb -o INPUT: exit $rc, want 2"
    grep -q 'is the input file' "$tmp/same.err" || fail "$verb -o INPUT: $(head -1 "$tmp/same.err")"
    [ "$(md5sum <"$tmp/d.hprof")" = "$sum" ] || fail "$verb -o INPUT changed the input"
done
ln -s d.hprof "$tmp/link.hprof"
rc=0; "$LEAKRAY" strip "$tmp/d.hprof" -o "$tmp/link.hprof" >/dev/null 2>&1 || rc=$?
[ "$rc" = 2 ] || fail "strip -o SYMLINK-TO-INPUT: exit $rc, want 2"
# so is analyze --html naming it, and a dashboard -o naming its leak store (a hard link too)
rc=0; "$LEAKRAY" analyze "$tmp/d.hprof" --html "$tmp/d.hprof" >/dev/null 2>"$tmp/same.err" || rc=$?
[ "$rc" = 2 ] && grep -q 'is the input file' "$tmp/same.err" ||
    fail "analyze --html INPUT: exit $rc: $(head -1 "$tmp/same.err")"
[ "$(md5sum <"$tmp/d.hprof")" = "$sum" ] || fail "analyze --html INPUT changed the input"
"$LEAKRAY" store ingest --db "$tmp/s.db" --at 2026-11-01 "$tmp/d.hprof" >/dev/null
ln "$tmp/s.db" "$tmp/s-link.db"
ssum=$(md5sum <"$tmp/s.db")
for o in s.db s-link.db; do
    rc=0; "$LEAKRAY" report --db "$tmp/s.db" -o "$tmp/$o" >/dev/null 2>"$tmp/same.err" || rc=$?
    [ "$rc" = 2 ] && grep -q 'is the leak store' "$tmp/same.err" ||
        fail "report --db STORE -o $o: exit $rc: $(head -1 "$tmp/same.err")"
done
[ "$(md5sum <"$tmp/s.db")" = "$ssum" ] || fail "report -o STORE changed the store"
# and a file it replaces keeps its mode: a report locked down to 0600 stays private
: >"$tmp/priv.html"
chmod 600 "$tmp/priv.html"
"$LEAKRAY" report "$tmp/d.hprof" -o "$tmp/priv.html" >/dev/null
[ "$(stat -c %a "$tmp/priv.html")" = 600 ] ||
    fail "a replaced 0600 report is now $(stat -c %a "$tmp/priv.html")"
echo "ok: -o naming the input is refused" >&2

mkfifo "$tmp/fifo"
rc=0; timeout 10 "$LEAKRAY" strip "$tmp/d.hprof" -o "$tmp/fifo" >/dev/null 2>"$tmp/fifo.err" || rc=$?
[ "$rc" = 4 ] || fail "strip -o FIFO: exit $rc, want 4"
grep -q 'fifo: a FIFO that no process reads' "$tmp/fifo.err" || fail "FIFO: $(cat "$tmp/fifo.err")"
echo "ok: a FIFO no process reads is refused at once" >&2
cat "$tmp/fifo" >"$tmp/from-fifo.hprof" &
reader=$!
ok=0
for _ in $(seq 100); do # until the reader has the FIFO open
    if timeout 20 "$LEAKRAY" strip "$tmp/d.hprof" -o "$tmp/fifo" >/dev/null 2>&1; then
        ok=1
        break
    fi
    sleep 0.05
done
[ $ok = 1 ] || fail "strip -o FIFO with a reader"
wait "$reader"
"$LEAKRAY" strip "$tmp/d.hprof" -o "$tmp/direct.hprof" >/dev/null
cmp -s "$tmp/from-fifo.hprof" "$tmp/direct.hprof" || fail "the FIFO's bytes differ from the file's"
"$LEAKRAY" strip "$tmp/d.hprof" -o /dev/null >/dev/null || fail "strip -o /dev/null"
echo "ok: a FIFO with a reader and /dev/null are written as streams" >&2

head -c 300001 "$tmp/d.hprof" >"$tmp/cut.hprof"
rc=0; "$LEAKRAY" strip "$tmp/cut.hprof" -o "$tmp/cut-s.hprof" >/dev/null 2>"$tmp/cut.err" || rc=$?
[ "$rc" = 3 ] || fail "strip of a rejected dump: exit $rc, want 3"
[ ! -e "$tmp/cut-s.hprof" ] || fail "strip of a rejected dump wrote output"
echo "ok: strip refuses what the reader rejects: $(head -1 "$tmp/cut.err")" >&2

mkdir "$tmp/png"
rc=0
( ulimit -f 1; exec "$LEAKRAY" dupes "$fix/test-dump.hprof" --mapping "$fix/test-dump.map" \
    --export-png "$tmp/png" ) >/dev/null 2>&1 || rc=$?
[ "$rc" != 0 ] || fail "dupes --export-png under ulimit -f 1 succeeded"
rc=0
( ulimit -f 100; exec "$LEAKRAY" strip "$tmp/d.hprof" -o "$tmp/big.hprof" ) >/dev/null \
    2>"$tmp/xfsz.err" || rc=$?
[ "$rc" = 4 ] && grep -q "File too large" "$tmp/xfsz.err" ||
    fail "strip past ulimit -f: exit $rc, $(cat "$tmp/xfsz.err")"
[ -z "$(ls -A "$tmp" | grep '^\.big')" ] && [ ! -e "$tmp/big.hprof" ] ||
    fail "strip past ulimit -f left a file"
left=$(ls -A "$tmp/png")
[ -z "$left" ] || fail "dupes --export-png left files behind: $left"
"$LEAKRAY" dupes "$fix/test-dump.hprof" --mapping "$fix/test-dump.map" --export-png "$tmp/png" \
    >/dev/null || fail "dupes --export-png exit $?"
[ "$(ls "$tmp/png" | grep -c '\.png$')" = 1 ] || fail "dupes --export-png: $(ls -A "$tmp/png")"
echo "ok: a failed PNG export leaves nothing behind" >&2

if command -v gdb >/dev/null; then
    for sig in SIGINT SIGTERM SIGHUP; do
        mkdir "$tmp/$sig"
        gdb -q -batch -nx -ex 'set confirm off' -ex "handle $sig nostop noprint pass" \
            -ex 'break outfile_commit' -ex run -ex "signal $sig" \
            --args "$LEAKRAY" strip --no-progress "$tmp/d.hprof" -o "$tmp/$sig/s.hprof" \
            >"$tmp/$sig.gdb" 2>&1 </dev/null || true
        grep -q '^Breakpoint 1, outfile_commit' "$tmp/$sig.gdb" || fail "$sig: breakpoint not reached"
        grep -q "terminated with signal $sig" "$tmp/$sig.gdb" || fail "$sig: not killed by it"
        left=$(ls -A "$tmp/$sig")
        [ -z "$left" ] || fail "$sig during strip left files behind: $left"
    done
    echo "ok: SIGINT, SIGTERM, SIGHUP remove the temporary" >&2
else
    echo "note: gdb not installed, signal cases skipped" >&2
fi
# A symbolic link as OUT: the file it names is replaced, the link kept (a rename onto the
# link replaced the link and left the file as it was); a link to nothing is refused. A path
# that names a descriptor of the process (/dev/stdout, /dev/fd/N) is written where that
# descriptor is: with stdout redirected to a file, `-o /dev/stdout` replaced the
# /dev/stdout link itself and the file stayed empty.
mkdir -p "$tmp/ln"
echo old >"$tmp/ln/target.html"
ln -s target.html "$tmp/ln/link.html"
"$LEAKRAY" report --no-timing "$fix/RI.hprof" -o "$tmp/ln/link.html" >/dev/null ||
    fail "report through a symbolic link failed"
[ -L "$tmp/ln/link.html" ] || fail "the symbolic link was replaced"
grep -q '^<!DOCTYPE html>' "$tmp/ln/target.html" || fail "the link's target kept its contents"
[ "$(ls -A "$tmp/ln" | wc -l)" = 2 ] || fail "files left beside the link: $(ls -A "$tmp/ln")"
ln -s nowhere "$tmp/ln/dangling.html"
rc=0
"$LEAKRAY" report --no-timing "$fix/RI.hprof" -o "$tmp/ln/dangling.html" >/dev/null \
    2>"$tmp/ln/err" || rc=$?
[ $rc = 4 ] && grep -q 'a symbolic link to nothing; not replaced' "$tmp/ln/err" ||
    fail "a dangling link: exit $rc: $(cat "$tmp/ln/err")"
"$LEAKRAY" report --no-timing --format json "$fix/RI.hprof" -o /dev/fd/1 >"$tmp/ln/fd.json" ||
    fail "report -o /dev/fd/1 failed"
head -c 20 "$tmp/ln/fd.json" | grep -q '"schema_version"' ||
    fail "-o /dev/fd/1 with stdout in a file: $(head -c 80 "$tmp/ln/fd.json")"
echo "ok: symbolic links and descriptor paths as OUT" >&2
echo "PASS"
