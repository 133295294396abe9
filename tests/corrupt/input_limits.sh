#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# input_limits.sh: inputs that used to hang, take the machine's memory or lose data silently.
#   - a 45 KB bzip2 bomb (an HPROF header, then 400 streams of 100 MiB of zeros: 40 GiB, made
#     at test time) without --max-inflate, under `ulimit -v` 2 GiB: the default cap follows
#     the memory available, so exit 5 with "exceeds the memory available", peak RSS under
#     1.1 GiB (the old default, 64 GiB, grew until the address space ran out);
#   - a real gzip dump with junk bytes between two members: exit 3 naming the offset (the old
#     reader stopped at the junk and dropped the rest with exit 0); zero padding stays fine;
#   - a FIFO with no writer as the dump, as --rules and as --mapping: no hang (the dump reads
#     as empty, exit 3, the rules/mapping as empty), and `--rules <(...)` works;
#   - `ulimit -v` too small to map a plain dump: exit 5 (resource limit), not 4.
set -euo pipefail
: "${LEAKRAY:?}" "${LEAKRAY_SRC:?}" "${LEAKRAY_BUILD:?}"
[ -x /usr/bin/time ] || { echo "FAIL: /usr/bin/time is needed (apt-get install time)"; exit 1; }
fix=${LEAKRAY_FIXTURES:-$LEAKRAY_SRC/../shared/fixtures}/hprof
if [ ! -d "$fix" ]; then
    [ "${CI:-}" = true ] && { echo "FAIL: no fixtures at $fix (required under CI=true)"; exit 1; }
    echo "SKIP: no HPROF fixtures at $fix" >&2
    exit 77
fi
tmp=$LEAKRAY_BUILD/tmp/input_limits
rm -rf "$tmp"
mkdir -p "$tmp"
fail() { echo "FAIL: $*" >&2; exit 1; }
asan=0
[[ $(ldd "$LEAKRAY" 2>/dev/null) == *libasan* ]] && asan=1

python3 - "$tmp/bomb.hprof.bz2" <<'PY'
import bz2, struct, sys
head = bz2.compress(b"JAVA PROFILE 1.0.2\0" + struct.pack(">IQ", 8, 0))
c = bz2.BZ2Compressor(9)
zeros = b"".join(c.compress(bytes(1 << 20)) for _ in range(100)) + c.flush()
open(sys.argv[1], "wb").write(head + zeros * 400)
PY
size=$(stat -c %s "$tmp/bomb.hprof.bz2")
[ "$size" -lt 60000 ] || fail "bomb is $size bytes"
if [ "$asan" = 0 ]; then # ASan reserves terabytes of address space: ulimit -v cannot apply
    rc=0
    ( ulimit -v $((2 * 1024 * 1024)); exec /usr/bin/time -f %M -o "$tmp/bomb.rss" \
        timeout 120 "$LEAKRAY" info --no-progress "$tmp/bomb.hprof.bz2" ) \
        >/dev/null 2>"$tmp/bomb.err" || rc=$?
    first=$(head -1 "$tmp/bomb.err")
    [ "$rc" = 5 ] || fail "bomb: exit $rc, want 5: $first"
    [[ "$first" == *bomb.hprof.bz2*"exceeds the memory available"* ]] || fail "bomb: $first"
    rss=$(tail -1 "$tmp/bomb.rss")
    [ "$rss" -le $((1100 * 1024)) ] || fail "bomb: peak RSS $rss KB"
    echo "ok: $size-byte bzip2 bomb: exit 5, $rss KB: $first" >&2
fi

# gzip members and bzip2 streams with junk between them or after the last
src=$fix/sun_jdk6_18_x32.hprof
python3 - "$src" "$tmp" <<'PY'
import bz2, gzip, sys
d = open(sys.argv[1], "rb").read()
half = len(d) // 2
for ext, z in (("gz", gzip.compress), ("bz2", bz2.compress)):
    a, b = z(d[:half]), z(d[half:])
    open(f"{sys.argv[2]}/junk.hprof.{ext}", "wb").write(a + b"JUNK" * 8 + b)
    open(f"{sys.argv[2]}/tail.hprof.{ext}", "wb").write(a + b + b"JUNK")
    open(f"{sys.argv[2]}/padded.hprof.{ext}", "wb").write(a + bytes(64) + b)
PY
for z in "gz gzip member" "bz2 bzip2 stream"; do
    set -- $z
    for f in junk tail; do
        rc=0; "$LEAKRAY" info --no-progress "$tmp/$f.hprof.$1" >/dev/null 2>"$tmp/$f.err" || rc=$?
        [ "$rc" = 3 ] || fail "$f.hprof.$1: exit $rc, want 3"
        grep -q "$f.hprof.$1: offset 0x[0-9a-f]*: bytes after $2 $3 are not a $2 $3" \
            "$tmp/$f.err" || fail "$f.hprof.$1: $(head -1 "$tmp/$f.err")"
    done
    "$LEAKRAY" info --no-progress "$tmp/padded.hprof.$1" >/dev/null || fail "padded $1: exit $?"
done
echo "ok: junk between or after gzip members and bzip2 streams is refused, zero padding is not" >&2

# FIFOs: a dump's waits for its writer (tests/cli/stdin_input.sh: 30 s at most); rules and
# mappings without a writer read as empty
mkfifo "$tmp/fifo"
( sleep 1; cat "$src" >"$tmp/fifo" ) &
rc=0; timeout 20 "$LEAKRAY" info --no-progress "$tmp/fifo" >/dev/null 2>"$tmp/fifo.err" || rc=$?
wait
[ "$rc" = 0 ] || fail "FIFO as dump, its writer late: exit $rc: $(head -1 "$tmp/fifo.err")"
for opt in --rules --mapping; do
    rc=0; timeout 10 "$LEAKRAY" analyze --no-timing "$opt" "$tmp/fifo" "$src" >/dev/null \
        2>"$tmp/fifo$opt.err" || rc=$?
    [ "$rc" = 0 ] || fail "FIFO as $opt: exit $rc: $(head -1 "$tmp/fifo$opt.err")"
done
out=$(timeout 10 "$LEAKRAY" analyze --no-timing --no-shipped-rules \
    --rules <(echo 'inspect class-object -> not-leaking "from a pipe"') "$src" \
    --watch java.lang.Thread) || fail "--rules <(...): exit $?"
grep -q 'from a pipe' <<<"$out" || fail "--rules <(...) not read"
echo "ok: FIFOs do not hang" >&2

# address space too small to map the dump
if [ "$asan" = 0 ]; then
    # a real dump's first 1 MB, then a hole up to 1 GiB: mapping it needs 1 GiB of address
    # space whatever the disk holds
    head -c 1000000 "$src" >"$tmp/plain.hprof"
    truncate -s 1G "$tmp/plain.hprof"
    rc=0
    ( ulimit -v 300000; exec "$LEAKRAY" info --no-progress "$tmp/plain.hprof" ) >/dev/null \
        2>"$tmp/ulimit.err" || rc=$?
    [ "$rc" = 5 ] || fail "ulimit -v: exit $rc, want 5: $(head -1 "$tmp/ulimit.err")"
    grep -q 'cannot map' "$tmp/ulimit.err" || fail "ulimit -v: $(head -1 "$tmp/ulimit.err")"
    echo "ok: ulimit -v: exit 5" >&2
fi
echo "PASS"
