#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# graph_mutations.sh: damaged copies of real inputs of every format but HPROF (which
# hprof_mutations.sh covers), made by graph_mutate.py: V8 snapshots (a fixture, its gzip
# sibling, and the Node, ArkTS and Bun-shaped snapshots of the fuzz corpus), Dart snapshots in both
# layouts (tests/programs/dart/dartheap.py), a Ruby dump, generic JSON-lines graphs (the
# corpus' iOS scan and a V8 snapshot converted at test time) and a native scan report with
# its heap graph. Damage: cuts inside strings, numbers, arrays and headers, seeded flips and
# substitutions, hostile numbers (counts, field counts, indices past the arrays, negative),
# nesting bombs, duplicated keys and lines, wrong V8 meta, bad escapes, empty files. Every run
# of leakray on them must end with exit 0 (or 1, findings, for analyze; 2 "no object with
# id" for path and show when the damage moved the object) where the damage may leave a valid
# input, or exit 3 with a first stderr line naming the file and a byte offset - never a
# crash (exit >= 128), a hang (timeout 20 s), a sanitizer report, or peak RSS above 8x the
# input plus 64 MB (plus room for the sanitizer runtime in an ASan build). Verbs rotate over
# info, histo, top, analyze, path, show, diff (clusters and dupes on V8, native report on
# scans), so each case costs one run. Then: terminal escapes planted in every text of valid inputs must
# not reach the terminal through any verb, and repeated ids must be counted (duplicate_id).
# GRAPH_MUTATIONS_SCALE=N multiplies the random cases and keeps them all, and
# GRAPH_MUTATIONS_SEED=S changes them (longer sweeps by hand); the test runs scale 1, seed 0,
# a seeded subset of each input's cases.
set -euo pipefail
: "${LEAKRAY:?}" "${LEAKRAY_SRC:?}" "${LEAKRAY_BUILD:?}"
command -v python3 >/dev/null || { echo "SKIP: python3 not installed"; exit 77; }
[ -x /usr/bin/time ] || { echo "FAIL: /usr/bin/time is needed (apt-get install time)"; exit 1; }
here=$(cd "$(dirname "$0")" && pwd)
scale=${GRAPH_MUTATIONS_SCALE:-1}
seed=${GRAPH_MUTATIONS_SEED:-0}
tmp=$LEAKRAY_BUILD/tmp/graph_mutations
rm -rf "$tmp"
mkdir -p "$tmp/in"
corpus=$LEAKRAY_SRC/tests/fuzz/corpus
fix=${LEAKRAY_FIXTURES:-$LEAKRAY_SRC/../shared/fixtures}/v8

slack_kb=$((64 * 1024))
if [[ $(ldd "$LEAKRAY" 2>/dev/null) == *libasan* ]]; then
    slack_kb=$((slack_kb + 192 * 1024)) # shadow memory, quarantine and the runtime itself
fi

# The undamaged inputs: KIND FILE TAG LIMIT (cases kept per input at scale 1: the test's
# time budget, about a minute in the ASan build).
python3 "$LEAKRAY_SRC/tests/programs/dart/dartheap.py" "$tmp/in/new.dartheap" new 6
python3 "$LEAKRAY_SRC/tests/programs/dart/dartheap.py" "$tmp/in/old.dartheap" old 4
python3 "$here/graph_mutate.py" ruby-sample "$tmp/in/sample.json"
python3 "$here/graph_mutate.py" v8-traces "$corpus/v8_load/node20-weak.heapsnapshot" "$tmp/in/traces.heapsnapshot"
"$LEAKRAY" convert --no-progress "$corpus/v8_load/node20-weak.heapsnapshot" -o "$tmp/in/v8.jsonl" >/dev/null
inputs=(
    "v8 $corpus/v8_load/node20-weak.heapsnapshot nw 48"
    "v8 $corpus/v8_load/arkts-layout.heapsnapshot ark 20"
    "v8 $corpus/v8_load/bun14-shape.heapsnapshot bun 16"
    "v8 $tmp/in/traces.heapsnapshot tr 32"
    "dart $tmp/in/new.dartheap dn 28"
    "dart $tmp/in/old.dartheap do 16"
    "ruby $tmp/in/sample.json rb 24"
    "ruby $corpus/ruby_load/small.json.gz rbz 16"
    "gtext $corpus/gtext_load/ios.jsonl ios 24"
    "gtext $tmp/in/v8.jsonl cv 20"
    "nscan $corpus/nscan_parse/list-graph.lrn lg 16"
    "nscan $corpus/nscan_parse/roots-v2.lrn r2 16"
)
if [ -d "$fix" ]; then
    inputs+=("v8 $fix/globals.heapsnapshot gl 12" "v8 $fix/snapshot1.heapsnapshot.gz s1 12")
elif [ "${CI:-}" = true ]; then
    echo "FAIL: no V8 fixtures at $fix (required under CI=true)"
    exit 1
else
    echo "note: no V8 fixtures at $fix; the corpus snapshots only" >&2
fi
cases=$tmp/cases.tsv
: >"$cases"
for spec in "${inputs[@]}"; do
    read -r kind file tag limit <<<"$spec"
    [ "$scale" = 1 ] || limit=0
    python3 "$here/graph_mutate.py" gen "$kind" "$file" "$tmp" "$tag" "$scale" "$seed" "$limit" |
        sed "s|^|$kind\t$file\t|" >>"$cases"
done

n=0 bad=0
declare -A by_rc=()
while IFS=$'\t' read -r kind base name expect path id verb what; do
    case $kind in
    v8) verbs=(info histo top analyze path show diff clusters dupes) ;;
    nscan) verbs=(info histo top analyze path show diff native) ;;
    *) verbs=(info histo top analyze path show diff) ;;
    esac
    [ "$verb" != - ] || verb=${verbs[$((n % ${#verbs[@]}))]}
    n=$((n + 1))
    case $verb in
    path | show) args=("$verb" --no-progress "$path" "$id") ;;
    diff) args=(diff --force --no-progress "$base" "$path") ;;
    native) args=(native report "$path") ;;
    *) args=("$verb" --no-progress "$path") ;;
    esac
    bytes=$(stat -c %s "$path")
    if [[ $path == *.gz ]]; then
        bytes=$(( bytes + $(gzip -dc "$path" 2>/dev/null | wc -c || true) ))
    fi
    size_kb=$(( (bytes + 1023) / 1024 ))
    set +e
    /usr/bin/time -f '%M %e' -o "$tmp/$name.rss" timeout 20 "$LEAKRAY" "${args[@]}" \
        >"$tmp/$name.out" 2>"$tmp/$name.err" </dev/null
    rc=$?
    set -e
    read -r rss secs < <(tail -1 "$tmp/$name.rss")
    # the first line that is no warning (a warning may be about the other side of a diff)
    first=$(grep -a -v -e '^==' -e '^$' -e '^leakray: [^ ]*: warning: ' "$tmp/$name.err" | head -1 || true)
    ok_rc="|$expect|"
    if [[ $ok_rc == *"|0|"* ]]; then
        [ "$verb" = analyze ] || [ "$verb" = clusters ] && ok_rc+="1|"
        [[ "$verb" =~ ^(path|show)$ && "$first" == *"no object with id"* ]] && ok_rc+="2|"
    fi
    problem=""
    if [ "$rc" = 124 ]; then
        problem="hang (killed after 20 s)"
    elif [ "$rc" -ge 128 ]; then
        problem="crash (exit $rc)"
    elif grep -a -q -e 'Sanitizer' -e 'runtime error:' "$tmp/$name.err"; then
        problem="sanitizer report: $(grep -a -m1 -e 'Sanitizer' -e 'runtime error:' "$tmp/$name.err")"
    elif ! [[ "$ok_rc" == *"|$rc|"* ]]; then
        problem="exit $rc, expected $expect; stderr: $first"
    elif [ "$rc" = 3 ] && ! [[ "$first" == *"$(basename "$path")"* && "$first" =~ offset\ 0x[0-9a-f]+ ]]; then
        problem="message lacks file name or offset: $first"
    elif [ "$rss" -gt $((8 * size_kb + slack_kb)) ]; then
        problem="peak RSS ${rss} KB > 8 x ${size_kb} KB + $((slack_kb / 1024)) MB"
    fi
    by_rc[$rc]=$(( ${by_rc[$rc]:-0} + 1 ))
    if [ -n "$problem" ]; then
        echo "FAIL $name [$verb] ($what): $problem"
        bad=$((bad + 1))
    else
        echo "ok   $name [$verb] exit $rc, ${rss} KB, ${secs} s: ${first:-(no message)}"
        rm -f "$path" "$tmp/$name.out"
    fi
done <"$cases"
# Terminal escapes in every text of a valid input (names, labels, versions, paths) must not
# reach the terminal through any verb's text output or message; nor through an error
# message quoting the file.
declare -A esc_id=()
for spec in "v8 $corpus/v8_load/node20-weak.heapsnapshot esc.heapsnapshot" \
    "gtext $tmp/in/v8.jsonl esc.jsonl" "gtext $corpus/gtext_load/ios.jsonl esc-ios.jsonl" \
    "ruby $tmp/in/sample.json esc.json" "nscan $corpus/nscan_parse/roots-v2.lrn esc.lrn" \
    "dart $tmp/in/new.dartheap esc.dartheap"; do
    read -r kind file out <<<"$spec"
    esc_id[$out]=$(python3 "$here/graph_mutate.py" escapes "$kind" "$file" "$tmp/in/$out")
done
printf 'leakray-native 2\n\033]0;owned\007 1\nend\n' >"$tmp/in/esc-word.lrn"
esc_id[esc-word.lrn]=0x10
for f in "$tmp"/in/esc*; do
    for verb in info histo top analyze path show cycles diff clusters dupes native; do
        id=${esc_id[$(basename "$f")]}
        case $verb in
        path | show) args=("$verb" --no-progress "$f" "$id") ;;
        cycles) args=(cycles --no-progress "$f" --from "$id") ;;
        diff) args=(diff --force --no-progress "$f" "$f") ;;
        native) [[ $f == *.lrn ]] || continue; args=(native report "$f") ;;
        clusters | dupes) [[ $f == *.heapsnapshot ]] || continue; args=("$verb" --no-progress "$f") ;;
        *) args=("$verb" --no-progress "$f") ;;
        esac
        n=$((n + 1))
        set +e
        timeout 20 "$LEAKRAY" "${args[@]}" >"$tmp/esc.out" 2>"$tmp/esc.err" </dev/null
        rc=$?
        set -e
        if [ "$rc" -ge 124 ] || LC_ALL=C grep -q -e $'\x1b' -e $'\x07' "$tmp/esc.out" "$tmp/esc.err"; then
            echo "FAIL $(basename "$f") [${args[*]:0:2}]: exit $rc; a terminal escape reached the output:"
            LC_ALL=C grep -a -e $'\x1b' -e $'\x07' "$tmp/esc.out" "$tmp/esc.err" | head -3 | cat -v
            bad=$((bad + 1))
        else
            echo "ok   $(basename "$f") [${args[*]:0:2}] exit $rc: no escape in the output"
        fi
    done
done

# Objects listed twice (the same id or address) are counted as the HPROF reader counts them
# (diagnostic duplicate_id): lookups answer the first, so the second's referrers go to it.
python3 - "$tmp/in" "$corpus/nscan_parse/roots-v2.lrn" <<'PY'
import sys
out, lrn = sys.argv[1:]
r = open(out + "/sample.json", "rb").read().split(b"\n")
open(out + "/dup.json", "wb").write(b"\n".join(r[:10] + [r[9]] + r[10:]))
d = open(lrn, "rb").read()
i = d.index(b"\nblock ") + 1
j = d.index(b"\n", i) + 1
open(out + "/dup.lrn", "wb").write(d[:j] + d[i:j] + d[j:])
g = b'{"leakray_graph": 1}\n{"node": 1, "size": 10}\n{"node": 1, "size": 20}\n{"root": 1}\n'
open(out + "/dup.jsonl", "wb").write(g)
PY
for f in dup.json dup.lrn dup.jsonl; do
    n=$((n + 1))
    if "$LEAKRAY" info --json "$tmp/in/$f" | python3 -c '
import json, sys
d = {x["name"]: x["count"] for x in json.load(sys.stdin).get("diagnostics", [])}
sys.exit(d.get("duplicate_id") != 1)'; then
        echo "ok   $f: duplicate_id 1"
    else
        echo "FAIL $f: info does not count the repeated id as duplicate_id 1"
        bad=$((bad + 1))
    fi
done

summary=$(for k in "${!by_rc[@]}"; do printf 'exit %s: %s, ' "$k" "${by_rc[$k]}"; done)
[ "$n" -gt 200 ] || { echo "FAIL: only $n cases were generated"; exit 1; }
if [ "$bad" -gt 0 ]; then
    echo "FAIL: $bad of $n runs were mishandled (damaged inputs: ${summary%, })"
    exit 1
fi
echo "PASS: $n runs handled cleanly (damaged inputs: ${summary%, })"
