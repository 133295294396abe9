#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# hprof_mutations.sh: damaged copies of real dumps (hprof-32.bin: 4-byte ids, JDK 6
# compressed oops: 8-byte ids; cut-down JDK 17 and Android dumps from the fuzz corpus), made
# by hprof_mutate.py: cuts at record boundaries and
# mid-record, seeded bit flips, hostile length and count fields. Every run of leakray on them
# must end with exit 3 (or 0 where the damage may leave a valid dump) and, on exit 3, a first
# stderr line naming the file and the byte offset - never a crash (exit >= 128), a hang
# (timeout 20 s), a sanitizer report, or peak RSS above 8x the input plus 64 MB (plus room
# for the sanitizer runtime in an ASan build). Verbs rotate over info, histo and the
# edge-walking verbs that exist (analyze, top), so each case costs one run.
set -euo pipefail
: "${LEAKRAY:?}" "${LEAKRAY_SRC:?}" "${LEAKRAY_BUILD:?}"
fix=${LEAKRAY_FIXTURES:-$LEAKRAY_SRC/../shared/fixtures}/hprof
if [ ! -d "$fix" ]; then
    [ "${CI:-}" = true ] && { echo "FAIL: no fixtures at $fix (required under CI=true)"; exit 1; }
    echo "SKIP: no HPROF fixtures at $fix" >&2
    exit 77
fi
[ -x /usr/bin/time ] || { echo "FAIL: /usr/bin/time is needed (apt-get install time)"; exit 1; }
here=$(cd "$(dirname "$0")" && pwd)
tmp=$LEAKRAY_BUILD/tmp/corrupt_mutations
rm -rf "$tmp"
mkdir -p "$tmp"

verbs=(info histo)
for v in analyze top; do
    "$LEAKRAY" "$v" --help >/dev/null 2>&1 && verbs+=("$v")
done
slack_kb=$((64 * 1024))
if [[ $(ldd "$LEAKRAY" 2>/dev/null) == *libasan* ]]; then
    slack_kb=$((slack_kb + 192 * 1024)) # shadow memory, quarantine and the runtime itself
fi

cases=$tmp/cases.tsv
python3 "$here/hprof_mutate.py" gen "$fix/hprof-32.bin" "$tmp" h32 >"$cases"
python3 "$here/hprof_mutate.py" gen "$fix/sun_jdk6_30_x64_compressedOops.hprof" "$tmp" j6 >>"$cases"
# Cut-down JDK 17 (HEAP_DUMP_SEGMENTs) and Android (heap tags) dumps from the fuzz corpus.
corpus=$LEAKRAY_SRC/tests/fuzz/corpus/hprof_load
python3 "$here/hprof_mutate.py" gen "$corpus/shrunk-jdk17-coops.hprof" "$tmp" j17 >>"$cases"
python3 "$here/hprof_mutate.py" gen "$corpus/shrunk-android-103.hprof" "$tmp" and >>"$cases"

n=0 bad=0
while IFS=$'\t' read -r name expect path what; do
    verb=${verbs[$((n % ${#verbs[@]}))]}
    n=$((n + 1))
    size_kb=$(( ($(stat -c %s "$path") + 1023) / 1024 ))
    set +e
    /usr/bin/time -f %M -o "$tmp/$name.rss" timeout 20 "$LEAKRAY" "$verb" --no-progress "$path" \
        >"$tmp/$name.out" 2>"$tmp/$name.err"
    rc=$?
    set -e
    rss=$(tail -1 "$tmp/$name.rss")
    first=$(grep -v -e '^==' -e '^$' "$tmp/$name.err" | head -1 || true)
    problem=""
    if [ "$rc" = 124 ]; then
        problem="hang (killed after 20 s)"
    elif [ "$rc" -ge 128 ]; then
        problem="crash (exit $rc)"
    elif grep -q -e 'Sanitizer' -e 'runtime error:' "$tmp/$name.err"; then
        problem="sanitizer report: $(grep -m1 -e 'Sanitizer' -e 'runtime error:' "$tmp/$name.err")"
    elif ! [[ "|$expect|" == *"|$rc|"* ]]; then
        problem="exit $rc, expected $expect; stderr: $first"
    elif [ "$rc" = 3 ] && ! [[ "$first" == *"$(basename "$path")"* && "$first" =~ offset\ 0x[0-9a-f]+ ]]; then
        problem="message lacks file name or offset: $first"
    elif [ "$rss" -gt $((8 * size_kb + slack_kb)) ]; then
        problem="peak RSS ${rss} KB > 8 x ${size_kb} KB + $((slack_kb / 1024)) MB"
    fi
    if [ -n "$problem" ]; then
        echo "FAIL $name [$verb] ($what): $problem"
        bad=$((bad + 1))
    else
        echo "ok   $name [$verb] exit $rc, ${rss} KB: ${first:-(no message)}"
    fi
done <"$cases"
[ "$n" -gt 40 ] || { echo "FAIL: only $n cases were generated"; exit 1; }
if [ "$bad" -gt 0 ]; then
    echo "FAIL: $bad of $n damaged dumps were mishandled"
    exit 1
fi
echo "PASS: $n damaged dumps rejected cleanly (verbs: ${verbs[*]})"
