#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# identity-goldens.sh [LEAKRAY]: regenerates tests/e2e/expected/identity/manifest.txt, the
# digests tests/e2e/identity.sh holds every verb's output to. Run it with the binary whose
# output is the reference (today's main) and only when an output change is intended:
#     git stash; make; scripts/identity-goldens.sh build/leakray; git stash pop
# One manifest line per command: "<sha256> <verb> <args...>" (no argument holds a space); the
# digest covers stdout, stderr and the exit code (tests/e2e/identity.py). The command
# list is every verb in text and --json over every dump fixture, plus the main option variants
# on one dump per format; object ids for path/show are the biggest objects `top` names. Each
# command is run twice and the script refuses outputs that differ between runs.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
bin=$(realpath "${1:-$src/build/leakray}")
fx=$(realpath "${LEAKRAY_FIXTURES:-$src/../shared/fixtures}")
[ -f "$fx/hprof/SOURCES.md" ] || { echo "fixtures not found in $fx" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The command list names files as the digests see them: fx/ (fixtures), data/ (tests/data).
mkdir "$work/w"
ln -s "$fx" "$work/w/fx"
ln -s "$src/tests/data" "$work/w/data"
cd "$work/w"

hprof=(fx/hprof/*.hprof fx/hprof/*.hprof.gz fx/hprof/*.hprof.bz2 fx/hprof/*.android-hprof
       fx/hprof/hprof-32.bin)
v8=(fx/v8/*.heapsnapshot fx/v8/*.heapsnapshot.gz data/browser/*.heapsnapshot.gz)
# Each verb's text and JSON forms: C ARGS... adds "ARGS" and "ARGS --json".
cmds=$work/cmds
: >"$cmds"
C() { echo "$* --no-timing" >>"$cmds"; echo "$* --json --no-timing" >>"$cmds"; }
# top's biggest objects: N-th id of FILE.
nth_id() {
    "$bin" top "$1" --json --no-timing --top 3 2>/dev/null |
        sed -n 's/^ *"id": "\([^"]*\)".*/\1/p' | sed -n "${2}p"
}
for f in "${hprof[@]}" "${v8[@]}"; do
    C info "$f"
    if [ "$f" = fx/hprof/java_pid1884.0001.hprof.gz ]; then
        continue # inflates to 522 MB, 1.4 s a run: info alone, top below
    fi
    C histo "$f"
    C top "$f"
    C threads "$f"
    C dupes "$f"
    C cycles "$f"
    C clusters "$f"
    C analyze "$f"
    a=$(nth_id "$f" 1)
    b=$(nth_id "$f" 3)
    if [ -n "$a" ]; then
        C show "$f" "$a"
        C path "$f" "$a"
    fi
    [ -n "$b" ] && C path "$f" "$b"
done
# Option variants on one dump per format (HotSpot, Android, Node, browser, 32-bit legacy).
for f in fx/hprof/RI.hprof fx/hprof/dialer.android-hprof fx/v8/test.heapsnapshot \
         data/browser/browser-final.heapsnapshot.gz fx/hprof/sun_jdk6_18_x32.hprof; do
    C histo "$f" --retained
    C histo "$f" --top 7 --sort count
    C histo "$f" --sort name --csv
    C histo "$f" --retained --sort retained --top 5
    C top "$f" --by class
    C top "$f" --top 5 --model strong
    C top "$f" --csv
    C dupes "$f" --top 3 --min-bytes 64
    C cycles "$f" --top 3 --max-length 4
    C clusters "$f" --sort count --top 5
    C analyze "$f" --verbose
    C analyze "$f" --no-suspects
    a=$(nth_id "$f" 2)
    [ -n "$a" ] && C show "$f" "$a" --limit 3
    [ -n "$a" ] && C cycles "$f" --from "$a"
done
C histo fx/hprof/dialer.android-hprof --heap app
C histo fx/hprof/dialer.android-hprof --heap zygote --retained
C histo data/browser/browser-final.heapsnapshot.gz --detached
C top data/browser/browser-final.heapsnapshot.gz --detached
C clusters data/browser/browser-final.heapsnapshot.gz --detached
C top fx/hprof/RI.hprof --model devtools
echo "top fx/hprof/java_pid1884.0001.hprof.gz --no-timing" >>"$cmds"
# Comparisons: diff of two dumps, the three-snapshot leak search.
for p in "fx/hprof/test-dump-base.hprof fx/hprof/test-dump.hprof" \
         "fx/v8/heap-1.heapsnapshot fx/v8/heap-2.heapsnapshot" \
         "fx/v8/snapshot1.heapsnapshot.gz fx/v8/snapshot2.heapsnapshot.gz" \
         "data/browser/browser-baseline.heapsnapshot.gz data/browser/browser-final.heapsnapshot.gz"
do
    # shellcheck disable=SC2086 # the pair splits into two arguments
    C diff $p
    # shellcheck disable=SC2086
    C diff $p --by-class --top 10
    # shellcheck disable=SC2086
    C diff $p --retained --top 10
done
C diff data/browser/browser-baseline.heapsnapshot.gz data/browser/browser-final.heapsnapshot.gz \
    --detached
C diff fx/hprof/sun_jdk6_18_x32.hprof fx/hprof/sun_jdk6_18_x64.hprof
C diff fx/hprof/sun_jdk6_18_x32.hprof fx/hprof/sun_jdk6_18_x64.hprof --force --top 5
C diff fx/v8/snapshot1.heapsnapshot.gz fx/v8/snapshot2.heapsnapshot.gz --force --top 10
C leaks --baseline fx/v8/heap-1.heapsnapshot --target fx/v8/heap-2.heapsnapshot \
    --final fx/v8/heap-3.heapsnapshot
C leaks --baseline data/browser/browser-baseline.heapsnapshot.gz \
    --target data/browser/browser-target.heapsnapshot.gz \
    --final data/browser/browser-final.heapsnapshot.gz
C leaks --baseline data/browser/browser-baseline.heapsnapshot.gz \
    --target data/browser/browser-target.heapsnapshot.gz \
    --final data/browser/browser-final.heapsnapshot.gz --detached --sort count --top 5
C leaks --baseline fx/hprof/test-dump-base.hprof --target fx/hprof/test-dump.hprof \
    --final fx/hprof/test-dump.hprof

# analyze beyond the defaults: watched classes (traces and groups), --collapse, Shark's sizes,
# a mapping, an unknown watched class (its warning), the gates' exit codes.
C analyze fx/hprof/RI.hprof --watch java.lang.Thread
C analyze fx/hprof/RI.hprof --watch 'Main$StackSmasher' --max-traces 2
C analyze fx/v8/test.heapsnapshot --watch Server --collapse
C analyze fx/hprof/dialer.android-hprof --collapse --categories android-views
C analyze fx/hprof/dialer.android-hprof --size-model shark
C analyze fx/hprof/dialer.android-hprof --fail-on-leak
C analyze fx/hprof/test-dump.hprof --mapping fx/hprof/test-dump.map
C analyze fx/hprof/test-dump.hprof --watch no.such.Class
C analyze fx/hprof/test-dump.hprof --fail-on-suspect 1 --suspect-share 5 --suspect-accumulation 50
# native report over saved scans (tests/data/native: modules that exist on no machine, so
# frames print as module+offset everywhere); a scan's timings come from the file, so the
# timed forms are byte-stable too.
for f in leaks threads clean truncated corrupt; do
    C native report data/native/$f.lrn
done
C native report data/native/leaks.lrn --fail-on-leak
echo "native report data/native/leaks.lrn" >>"$cmds"
echo "native report data/native/threads.lrn --json" >>"$cmds"

# sql in every output mode (tests/data/sql: statements in files, as no argument holds a space):
# tab-separated (stdout is no terminal here), --csv, --json, streamed (--max-rows 0), a cap
# exceeded after a first result, SQL errors before and after rows, a model; convert and strip
# status lines, each command writing its own output file.
for f in fx/hprof/RI.hprof fx/v8/test.heapsnapshot fx/hprof/dialer.android-hprof; do
    for q in top classes strings many; do
        C sql "$f" --sql-file data/sql/$q.sql
        C sql "$f" --sql-file data/sql/$q.sql --csv
    done
    C sql "$f" --sql-file data/sql/many.sql --max-rows 0
    C sql "$f" --sql-file data/sql/many.sql --max-rows 0 --csv
    C sql "$f" --sql-file data/sql/many.sql --max-rows 100
done
for m in "" "--csv" "--max-rows 0" "--max-rows 0 --csv" "--max-rows 2"; do
    for q in values bad runtime empty; do
        # shellcheck disable=SC2086 # $m is zero or more arguments
        C sql fx/hprof/RI.hprof --sql-file data/sql/$q.sql $m
    done
done
C sql fx/v8/test.heapsnapshot --sql-file data/sql/top.sql --model strong
C sql fx/hprof/RI.hprof --sql-file data/sql/top.sql --model strong
C sql fx/hprof/RI.hprof --sql-file data/sql/top.sql --model devtools
C sql fx/hprof/RI.hprof --sql-file data/sql/no-such-file.sql
for f in fx/hprof/RI.hprof fx/v8/test.heapsnapshot fx/hprof/dialer.android-hprof; do
    n=$(basename "$f" | tr -c 'a-zA-Z0-9\n' _)
    for ext in heapsnapshot jsonl; do
        echo "convert $f -o conv-$n.$ext --no-timing" >>"$cmds"
        echo "convert $f -o conv-$n-j.$ext --json --no-timing" >>"$cmds"
    done
done
for f in fx/hprof/RI.hprof fx/hprof/dialer.android-hprof fx/hprof/sun_jdk6_18_x32.hprof; do
    n=$(basename "$f" | tr -c 'a-zA-Z0-9\n' _)
    for mode in sanitize shrink; do
        echo "strip $f -o strip-$n-$mode.hprof --mode $mode --no-timing" >>"$cmds"
        echo "strip $f -o strip-$n-$mode-j.hprof --mode $mode --json --no-timing" >>"$cmds"
    done
done
echo "strip fx/v8/test.heapsnapshot -o strip-v8.hprof --no-timing" >>"$cmds"
echo "strip fx/v8/test.heapsnapshot -o strip-v8-j.hprof --json --no-timing" >>"$cmds"

# path --merged and instances over every dump (java.lang.String in Java dumps, Object in V8
# ones), option variants on one dump per format, their errors, and dupes --export-png (into
# the run folder: the listing names the files written).
for f in "${hprof[@]}" "${v8[@]}"; do
    [ "$f" = fx/hprof/java_pid1884.0001.hprof.gz ] && continue
    case $f in fx/hprof/*) k=java.lang.String ;; *) k=Object ;; esac
    C path "$f" --class "$k" --merged
    C instances "$f" "$k" --sort retained --limit 5
done
for f in fx/hprof/RI.hprof fx/hprof/dialer.android-hprof fx/v8/test.heapsnapshot \
         data/browser/browser-final.heapsnapshot.gz fx/hprof/sun_jdk6_18_x32.hprof; do
    case $f in fx/hprof/*) k=java.lang.String ;; *) k=Object ;; esac
    C path "$f" --class "$k" --merged --limit 0
    C path "$f" --class "$k" --merged --limit 1
    C instances "$f" "$k"
    C instances "$f" "$k" --sort shallow --limit 0
    C instances "$f" "$k" --sort retained --model strong --limit 3
    C instances "$f" "$k" --where '@size>20'
done
C path fx/hprof/RI.hprof --class java.lang.Number --subclasses --merged --limit 2
C path fx/hprof/dialer.android-hprof --class java.util.AbstractMap --subclasses --merged
C path fx/v8/test.heapsnapshot --class Server --merged
C path fx/hprof/RI.hprof --class no.such.Class --merged
C instances fx/hprof/RI.hprof java.lang.Number --subclasses --sort retained
C instances fx/hprof/dialer.android-hprof java.util.ArrayList --where 'size>10' --limit 3
C instances fx/hprof/dialer.android-hprof android.content.Context --subclasses --model visualvm
C instances fx/hprof/RI.hprof java.lang.Thread --model devtools
C instances fx/hprof/RI.hprof java.lang.Thread --where 'size>'
C instances fx/hprof/RI.hprof no.such.Class
C instances fx/v8/test.heapsnapshot Server --model devtools --sort retained
echo "dupes fx/hprof/test-dump.hprof --mapping fx/hprof/test-dump.map --export-png . --no-timing" \
    >>"$cmds"
echo "dupes fx/hprof/test-dump.hprof --mapping fx/hprof/test-dump.map --export-png ./. --json" \
    "--no-timing" >>"$cmds"

n=$(wc -l <"$cmds")
echo "digesting $n commands (twice)..." >&2
py=$src/tests/e2e/identity.py
python3 "$py" "$bin" "$src" "$fx" "$work/run" "$cmds" "$work/a"
python3 "$py" "$bin" "$src" "$fx" "$work/run" "$cmds" "$work/b"
if ! cmp -s "$work/a" "$work/b"; then
    echo "outputs differ between two runs:" >&2
    diff "$work/a" "$work/b" >&2 || true
    exit 1
fi
out=$src/tests/e2e/expected/identity/manifest.txt
mkdir -p "$(dirname "$out")"
cp "$work/a" "$out"
echo "wrote $out ($n commands)" >&2
