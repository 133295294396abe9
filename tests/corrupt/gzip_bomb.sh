#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# gzip_bomb.sh: compressed input must never cost more memory than --max-inflate allows.
#   - a 2 GiB gzip bomb (an HPROF header, then 32 members of 64 MiB of zeros: 2 MB on disk,
#     written at test time) with --max-inflate 64M: exit 5, a message naming the limit, peak
#     RSS under 64 MB + 64 MB (+ the sanitizer runtime), in seconds;
#   - the same in --json: the error object with code "limit" and exit 5;
#   - a real gzip fixture with --max-inflate 1M: exit 5; without it: exit 0 (the control);
#   - that fixture cut short, and with a damaged deflate stream: exit 3 naming the file.
set -euo pipefail
: "${LEAKRAY:?}" "${LEAKRAY_SRC:?}" "${LEAKRAY_BUILD:?}"
[ -x /usr/bin/time ] || { echo "FAIL: /usr/bin/time is needed (apt-get install time)"; exit 1; }
tmp=$LEAKRAY_BUILD/tmp/corrupt_gzip_bomb
rm -rf "$tmp"
mkdir -p "$tmp"
bomb=$tmp/bomb.hprof.gz
python3 - "$bomb" <<'PY'
import struct, sys, zlib
def member(data_chunks):
    c = zlib.compressobj(9, zlib.DEFLATED, 31)
    return b"".join(c.compress(d) for d in data_chunks) + c.flush()
head = member([b"JAVA PROFILE 1.0.2\0" + struct.pack(">IQ", 8, 0)])
zeros = member([bytes(1 << 20)] * 64)
with open(sys.argv[1], "wb") as f:
    f.write(head + zeros * 32)
PY
slack_kb=$((64 * 1024))
[[ $(ldd "$LEAKRAY" 2>/dev/null) == *libasan* ]] && slack_kb=$((slack_kb + 192 * 1024))
bad=0

# run NAME EXPECTED-EXIT [leakray args...]: runs leakray info with a 20 s timeout, records
# peak RSS, checks the exit code and that no sanitizer spoke.
run() {
    local name=$1 want=$2
    shift 2
    set +e
    /usr/bin/time -f %M -o "$tmp/$name.rss" timeout 20 "$LEAKRAY" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err"
    rc=$?
    set -e
    rss=$(tail -1 "$tmp/$name.rss")
    first=$(head -1 "$tmp/$name.err")
    if [ "$rc" != "$want" ]; then
        echo "FAIL $name: exit $rc, expected $want: $first"
        bad=$((bad + 1))
        return 1
    elif grep -q -e 'Sanitizer' -e 'runtime error:' "$tmp/$name.err"; then
        echo "FAIL $name: sanitizer report"
        bad=$((bad + 1))
        return 1
    fi
    echo "ok   $name: exit $rc, ${rss} KB: ${first:-(no message)}"
}

if run bomb 5 info --no-progress --max-inflate 64M "$bomb"; then
    [[ "$first" == *bomb.hprof.gz* && "$first" == *max-inflate* ]] ||
        { echo "FAIL bomb: message should name the file and --max-inflate: $first"; bad=$((bad + 1)); }
    [ "$rss" -le $((64 * 1024 + slack_kb)) ] ||
        { echo "FAIL bomb: peak RSS $rss KB over 64 MB + slack"; bad=$((bad + 1)); }
fi
if run bomb-json 5 histo --json --max-inflate 64M "$bomb"; then
    python3 - "$tmp/bomb-json.out" <<'PY' || bad=$((bad + 1))
import json, sys
e = json.load(open(sys.argv[1]))["error"]
if e.get("code") != "limit" or e.get("exit") != 5:
    print(f"FAIL bomb-json: error object {e}")
    sys.exit(1)
PY
fi

fix=${LEAKRAY_FIXTURES:-$LEAKRAY_SRC/../shared/fixtures}/hprof/openjdk_jdk11_04_x64.hprof.gz
if [ -f "$fix" ]; then
    run fixture-limit 5 histo --no-progress --max-inflate 1M "$fix" || true
    run fixture-control 0 histo --no-progress --top 3 "$fix" || true
    head -c 1000000 "$fix" >"$tmp/cut.hprof.gz"
    if run fixture-cut 3 info --no-progress "$tmp/cut.hprof.gz"; then
        [[ "$first" == *cut.hprof.gz* ]] || { echo "FAIL fixture-cut: $first"; bad=$((bad + 1)); }
    fi
    python3 - "$fix" "$tmp/damaged.hprof.gz" <<'PY'
import sys
b = bytearray(open(sys.argv[1], "rb").read())
for at in range(4096, 4096 + 64):  # inside the deflate data of the first member
    b[at] ^= 0x5A
open(sys.argv[2], "wb").write(b)
PY
    if run fixture-damaged 3 info --no-progress "$tmp/damaged.hprof.gz"; then
        [[ "$first" == *damaged.hprof.gz* ]] || { echo "FAIL fixture-damaged: $first"; bad=$((bad + 1)); }
    fi
elif [ "${CI:-}" = true ]; then
    echo "FAIL: fixture $fix missing (required under CI=true)"
    exit 1
else
    echo "note: $fix missing; gzip fixture cases skipped"
fi
[ "$bad" = 0 ] || { echo "FAIL: $bad compressed-input cases"; exit 1; }
echo "PASS: compressed input stays within --max-inflate"
