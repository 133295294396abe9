#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# js_diff_fixtures.sh: `leakray diff` against the numbers the fixtures' origin repositories
# assert (fixtures/v8/SOURCES.md): heap-1 -> heap-2 of dinfuehr/heap-snapshot (2
# InitialObject, 2 plain objects and 2 (number) freed, 2 NewObject and 2 Array allocated, 45
# new / 43 deleted concatenated strings with 900 / 860 bytes; the {createdAt} objects count as
# `Object`, as DevTools names the base's plain objects with heap-2's interface definitions, where
# the last {createdAt} no longer makes an interface), heap-2 -> heap-1 mirrored,
# heap-snapshot-toolkit's snapshot1 -> snapshot2 (one Foo of 52 bytes added; two workers, not
# one: their built-in functions carry each other's ids, so the pair needs --force), and an
# HPROF pair compared per class (test-dump-base -> test-dump: 10,000 more `o` objects). Every
# row of each V8 pair also equals DevTools' Comparison view (goldens from
# scripts/golden-devtools-diff.sh, run on DevTools' own code). Snapshots of two d8 runs
# (closures, globals) are refused as two processes.
set -euo pipefail
. "$LEAKRAY_SRC/tests/e2e/js_lib.bash"
FIX=${LEAKRAY_FIXTURES:-$LEAKRAY_SRC/../shared/fixtures}/v8
if [ ! -f "$FIX/heap-1.heapsnapshot" ]; then
    if [ "${CI:-}" = true ]; then echo "FAIL: fixtures missing in $FIX"; exit 1; fi
    echo "SKIP: fixtures not found in $FIX (set LEAKRAY_FIXTURES)"
    exit 77
fi
if ! command -v python3 >/dev/null 2>&1; then echo "SKIP: python3 is not installed"; exit 77; fi
JS_TMP=$LEAKRAY_BUILD/tmp/js_diff_fixtures
rm -rf "$JS_TMP" && mkdir -p "$JS_TMP"
row() { echo "[(r['new'], r['deleted'], r['alloc_size'], r['freed_size']) for r in j['classes'] if r['name'] == '$1']"; }

JS_JSON=$JS_TMP/h12.json
"$LEAKRAY" diff "$FIX/heap-1.heapsnapshot" "$FIX/heap-2.heapsnapshot" --json --no-timing >"$JS_JSON"
js_check "heap-1 -> heap-2: one isolate, every JavaScript object both hold by id keeps its name" \
    "j['inputs']['related'] and j['inputs']['js_ids_shared'] > 1000 and j['inputs']['js_ids_same_class'] == j['inputs']['js_ids_shared']"
js_check "heap-1 -> heap-2: InitialObject 2 deleted, 120 B" "$(row InitialObject) == [(0, 2, 0, 120)]"
js_check "heap-1 -> heap-2: NewObject 2 new, 120 B" "$(row NewObject) == [(2, 0, 120, 0)]"
js_check "heap-1 -> heap-2: Array 2 new, 32 B" "$(row Array) == [(2, 0, 32, 0)]"
js_check "heap-1 -> heap-2: Object 2 deleted, 32 B (the {createdAt} objects, named by heap-2)" \
    "$(row Object) == [(0, 2, 0, 32)] and $(row '{createdAt}') == []"
js_check "heap-1 -> heap-2: (number) 2 deleted, 24 B" "$(row '(number)') == [(0, 2, 0, 24)]"
js_check "heap-1 -> heap-2: (concatenated string) 45 new / 43 deleted, 900 / 860 B" \
    "$(row '(concatenated string)') == [(45, 43, 900, 860)]"
js_check "heap-1 -> heap-2: (string) 4 / 4, 76 / 72 B" "$(row '(string)') == [(4, 4, 76, 72)]"
js_check "heap-1 -> heap-2: (object shape) 11 new / 1 deleted, 408 / 20 B" \
    "$(row '(object shape)') == [(11, 1, 408, 20)]"

JS_JSON=$JS_TMP/h21.json
"$LEAKRAY" diff "$FIX/heap-2.heapsnapshot" "$FIX/heap-1.heapsnapshot" --json --no-timing >"$JS_JSON"
js_check "heap-2 -> heap-1 mirrors it" \
    "$(row InitialObject) == [(2, 0, 120, 0)] and $(row '(concatenated string)') == [(43, 45, 860, 900)] and $(row '{createdAt}') == [(2, 0, 32, 0)]"

# Two isolates: V8 numbers each one's start-up objects alike, but its JavaScript objects and
# closures do not keep their names across them (kinship.h).
for pair in "snapshot1.heapsnapshot.gz snapshot2.heapsnapshot.gz" \
            "closures.heapsnapshot globals.heapsnapshot"; do
    set -- $pair
    rc=0
    "$LEAKRAY" diff "$FIX/$1" "$FIX/$2" --no-timing >/dev/null 2>"$JS_TMP/iso.err" || rc=$?
    # the refusal names the comparison that fits two processes: class by class
    if [ "$rc" = 2 ] && grep -q "JavaScript objects present in both by id, only [0-9]*% keep" "$JS_TMP/iso.err" &&
        grep -q -- "--by-class compares them class by class" "$JS_TMP/iso.err"; then
        echo "ok: $1 and $2 refused as two isolates"
    else
        echo "FAIL: $1 and $2: exit $rc, $(head -c 300 "$JS_TMP/iso.err")"
        JS_FAILS=$((JS_FAILS + 1))
    fi
done
JS_JSON=$JS_TMP/s12.json
"$LEAKRAY" diff "$FIX/snapshot1.heapsnapshot.gz" "$FIX/snapshot2.heapsnapshot.gz" --force --json --no-timing >"$JS_JSON"
js_check "snapshot1 -> snapshot2 under --force: not related, forced" \
    "j['inputs']['related'] is False and j['inputs']['forced'] is True and j['inputs']['js_ids_same_class'] * 2 < j['inputs']['js_ids_shared']"
js_check "snapshot1 -> snapshot2: Foo added once, 52 B (heap-snapshot-toolkit test)" \
    "[(r['new'], r['deleted'], r['alloc_size'], r['size_delta']) for r in j['classes'] if r['name'] == 'Foo'] == [(1, 0, 52, 52)]"

# Every row equals DevTools' Comparison view.
gold=$LEAKRAY_SRC/tests/e2e/expected/devtools
for pair in "heap-1 heap-2" "heap-2 heap-1" "heap-2 heap-3" "heap-1 heap-3" \
            "snapshot1 snapshot2"; do
    set -- $pair
    fa=$FIX/$1.heapsnapshot fb=$FIX/$2.heapsnapshot
    [ -f "$fa" ] || fa=$fa.gz
    [ -f "$fb" ] || fb=$fb.gz
    force=
    [ "$1" = snapshot1 ] && force=--force
    "$LEAKRAY" diff "$fa" "$fb" $force --json --no-timing >"$JS_TMP/pair.json"
    if python3 "$LEAKRAY_SRC/tests/e2e/browser_check.py" compare "$JS_TMP/pair.json" \
        "$gold/$1--$2.diff.tsv" >/dev/null; then
        echo "ok: $1 -> $2 equals DevTools' Comparison, every class"
    else
        echo "FAIL: $1 -> $2 differs from DevTools' Comparison"
        JS_FAILS=$((JS_FAILS + 1))
    fi
done

# HPROF ids are addresses the GC reuses: classes only, unless --match-ids.
H=${LEAKRAY_FIXTURES:-$LEAKRAY_SRC/../shared/fixtures}/hprof
JS_JSON=$JS_TMP/hprof.json
"$LEAKRAY" diff "$H/test-dump-base.hprof" "$H/test-dump.hprof" --json --no-timing >"$JS_JSON"
js_check "HPROF pair: class mode, class o 10,000 -> 20,000 objects, 120,000 -> 240,000 B" \
    "j['match'] == 'class' and [(r['count_a'], r['count_b'], r['size_a'], r['size_b'], r['count_delta']) for r in j['classes'] if r['name'] == 'o'] == [(10000, 20000, 120000, 240000, 10000)]"
JS_JSON=$JS_TMP/hprof-ids.json
"$LEAKRAY" diff "$H/test-dump-base.hprof" "$H/test-dump.hprof" --match-ids --json --no-timing >"$JS_JSON"
js_check "HPROF pair with --match-ids: id mode, new - deleted = count delta" \
    "j['match'] == 'id' and all(r['count_b'] - r['count_a'] == r['new'] - r['deleted'] for r in j['classes'])"
js_finish
