#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# art_pending.sh: ART's list of cleared references owns nothing. An ART dump written right
# after a GC holds the references the GC cleared on one list (ReferenceQueue.unenqueued, then
# Reference.pendingNext from each to the next, circular) until the ReferenceQueue daemon
# queues them. art_pending.py puts the fixture test-dump.hprof's 14 queueable references on
# that list, as ART would, and changes nothing else: `top` (objects and classes, default and
# --model strong), `threads`, `show` and `sql` must give every object the same retained size
# and rank on both files. Following pendingNext, each reference on the list looked held by
# the one before it (the WeakHashMap entries, the Cleaners, the finalizer references moved
# to the top level, their owners retaining less).
set -euo pipefail
: "${LEAKRAY:?}" "${LEAKRAY_SRC:?}" "${LEAKRAY_BUILD:?}"
fx="${LEAKRAY_FIXTURES:-$LEAKRAY_SRC/../shared/fixtures}/hprof/test-dump.hprof"
if [ ! -f "$fx" ]; then
    if [ "${CI:-}" = true ]; then echo "FAIL: fixture missing: $fx" >&2; exit 1; fi
    echo "SKIP: fixture not found: $fx"
    exit 77
fi
command -v python3 >/dev/null || { echo "SKIP: python3 not installed"; exit 77; }
work="$LEAKRAY_BUILD/tmp/art_pending"
rm -rf "$work"
mkdir -p "$work"
fail() { echo "FAIL: $*" >&2; exit 1; }

python3 "$LEAKRAY_SRC/tests/e2e/art_pending.py" "$fx" "$work/pending.hprof" > "$work/ids.txt"
[ "$(wc -l < "$work/ids.txt")" -ge 10 ] || fail "fewer than 10 references put on the list"
# the list is in the patched dump as ART links it (else the case is not tested)
"$LEAKRAY" sql "$work/pending.hprof" "SELECT
    (SELECT count(*) FROM edges WHERE name = 'pendingNext' AND src <> dst),
    (SELECT count(*) FROM edges WHERE name = 'unenqueued' AND kind = 'static')" \
    > "$work/links.txt"
read -r links head < <(tail -n 1 "$work/links.txt")
[ "$links" = "$(wc -l < "$work/ids.txt")" ] && [ "$head" = 1 ] ||
    fail "the patched dump does not hold the list (pendingNext links $links, head $head)"

# same answers on both files, but for the file's name
same() {
    "$LEAKRAY" "$@" "$fx" --json --no-timing > "$work/a.json"
    "$LEAKRAY" "$@" "$work/pending.hprof" --json --no-timing > "$work/b.json"
    python3 - "$work/a.json" "$work/b.json" <<'PY' || fail "$* differs once the list is set"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
for d in (a, b):
    d.pop("file", None)
if a != b:
    def rows(d):
        return d.get("objects") or d.get("classes") or d.get("threads") or []
    diff = [(x, y) for x, y in zip(rows(a), rows(b)) if x != y][:3]
    sys.exit("first differing rows: %r" % (diff,))
PY
}
same top --top 100000
same top --by class --top 100000
same top --model strong --top 100000
same threads
# the other verbs' trees (show, SQL over the heap) hold the same rule: each listed
# reference keeps its retained size and dominator
for id in $(cat "$work/ids.txt"); do
    for f in "$fx" "$work/pending.hprof"; do
        "$LEAKRAY" show "$f" "$id" --json --no-timing | python3 -c 'import json, sys
o = json.load(sys.stdin)["object"]
print(o["retained"], o["dominator"])'
    done > "$work/show.txt"
    [ "$(sed -n 1p "$work/show.txt")" = "$(sed -n 2p "$work/show.txt")" ] ||
        fail "show $id: retained and dominator differ once the list is set: $(cat "$work/show.txt")"
done
sqlq="SELECT id, retained, dominator FROM objects WHERE retained > 0 ORDER BY id"
"$LEAKRAY" sql "$fx" "$sqlq" > "$work/sql-a.txt"
"$LEAKRAY" sql "$work/pending.hprof" "$sqlq" > "$work/sql-b.txt"
cmp -s "$work/sql-a.txt" "$work/sql-b.txt" || fail "sql retained sizes differ once the list is set"
echo "ok: $(wc -l < "$work/ids.txt") references on ART's list change no retained size"
