#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# v8_watch.sh: `analyze --watch` on a Node.js snapshot finds objects held the ways closures
# hold things. tests/programs/node/v8_watch_leaks.js (written at test time with
# v8.writeHeapSnapshot) keeps 20 Pollers through setInterval callbacks, 20 RequestContexts
# through EventEmitter listeners, 20 CacheEntry values in a module-level Map and 20
# MemoEntry values in a closure's private Map. Each watched class gives 20 application-leak
# traces and no unreachable object (a closure's context and a Map's table are V8 internal
# edges, which are how those objects hold what they hold), the leaking object's "Retaining"
# figure is the retained size `show` gives the same node (DevTools'). Each class's 20 objects
# share one signature (one group): the slot numbers of a Map's backing store, of a context or
# an array are array entries, `[x]` in signatures, as Shark names array entries. A trace
# starts at its first real object, under a GC Root line naming V8's sub-roots ("(GC roots) /
# (Stack roots)"), or "Global object" for the objects hanging off globalThis; never
# "Unknown GC root type" nor a "(synthetic)" step. An object kept only by a WeakRef is no
# leak. `--watch` takes V8 class names with spaces and slashes ('system / Context'). The
# global object's LARGEST RETAINERS entry names its root as the traces do (Global object).
set -euo pipefail
: "${LEAKRAY:?}" "${LEAKRAY_SRC:?}" "${LEAKRAY_BUILD:?}"
command -v node >/dev/null || { echo "SKIP: node not installed"; exit 77; }
command -v python3 >/dev/null || { echo "SKIP: python3 not installed"; exit 77; }
work="$LEAKRAY_BUILD/tmp/v8_watch"
rm -rf "$work"
mkdir -p "$work"
fail() { echo "FAIL: $*" >&2; exit 1; }
snap="$work/w.heapsnapshot"
node "$LEAKRAY_SRC/tests/programs/node/v8_watch_leaks.js" "$snap"

for c in Poller RequestContext CacheEntry MemoEntry GlobalHeld; do
    "$LEAKRAY" analyze "$snap" --watch "$c" --json --no-timing --no-suspects > "$work/$c.json"
    python3 - "$work/$c.json" "$c" > "$work/$c.ids" <<'PY' || fail "$c: $(cat "$work/$c.ids")"
import json, sys
d = json.load(open(sys.argv[1]))
c = sys.argv[2]
want = 3 if c == "GlobalHeld" else 20
traces = [t for t in d["traces"] if not t["library_leak"]]
if len(traces) != want or d["unreachable_objects"]:
    print("%d traces, %d unreachable (want %d, 0)"
          % (len(traces), len(d["unreachable_objects"]), want))
    sys.exit(1)
if len(d["application_leaks"]) != 1:
    print("%d groups for the %d %s (want 1)" % (len(d["application_leaks"]), want, c))
    sys.exit(1)
root = "Global object" if c == "GlobalHeld" else "(GC roots) / "
for t in traces:
    desc = t["gc_root"]["description"]
    if not desc.startswith(root):
        print("GC root %r (want %r...)" % (desc, root))
        sys.exit(1)
    if t["elements"][0]["class"] == "(synthetic)":
        print("a trace starts with a (synthetic) step")
        sys.exit(1)
for t in traces[:3]:
    e = t["elements"][-1]
    assert e["class"] == c, e["class"]
    print(e["id"], e["retained_bytes"])
PY
    while read -r id ret; do
        shown=$("$LEAKRAY" show "$snap" "$id" --no-timing |
                sed -n 's/^retained size: *\([0-9,]*\) .*/\1/p' | tr -d ,)
        [ "$shown" = "$ret" ] || fail "$c $id: the trace retains $ret, show says $shown"
    done < "$work/$c.ids"
done

"$LEAKRAY" analyze "$snap" --watch CacheEntry --no-timing --no-suspects > "$work/c.txt"
grep -q '^│    ↓ (array)\[[0-9]*\]$' "$work/c.txt" || fail "a Map's slot is not shown as (array)[N]"
"$LEAKRAY" analyze "$snap" --watch 'system / Context' --json --no-timing --no-suspects \
    > "$work/ctx.json" || fail "--watch 'system / Context' refused"
python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
sys.exit(not d["traces"] or d["traces"][0]["elements"][-1]["class"] != "system / Context")' \
    "$work/ctx.json" || fail "--watch 'system / Context' found no context"

# the LARGEST RETAINERS speak as the traces: the global object's suspect has the same root;
# Node marks some of its own objects detached (`Detached Node / BindingData`): no DOM node,
# so no leak
"$LEAKRAY" analyze "$snap" --json --no-timing > "$work/s.json"
"$LEAKRAY" histo "$snap" --no-timing > "$work/det.txt"
if "$LEAKRAY" histo --detached "$snap" > /dev/null 2>&1; then
    fail "histo --detached accepted on a Node.js heap, which has no DOM"
fi
if grep -q 'Detached Node / ' "$work/det.txt"; then # Node 20 marks them; others may not
    python3 -c 'import json, sys; sys.exit(len(json.load(open(sys.argv[1]))["traces"]) != 0)' \
        "$work/s.json" || fail "Node's detached embedder objects reported as leaks"
fi
python3 -c 'import json, sys
s = [x for x in json.load(open(sys.argv[1]))["suspects"] if x["path"][0]["class"] == "global"]
sys.exit(not s or s[0]["gc_root"].get("description") != "Global object")' "$work/s.json" ||
    fail "the global object suspect's root is not Global object"

"$LEAKRAY" analyze "$snap" --watch Discarded --no-timing --no-suspects > "$work/d.txt" 2>&1
grep -q '^0 APPLICATION LEAKS$' "$work/d.txt" || fail "a WeakRef-only object reported as a leak"
echo "v8_watch: ok"
