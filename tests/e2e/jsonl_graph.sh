#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# jsonl_graph.sh: the generic JSON-lines graph format end to end. (1) Round trip: a HotSpot
# dump of tests/programs/leaks, the Android fixture and a V8 fixture are converted with
# `convert -o X.jsonl` and read back: histo, histo --retained, top (both size models; V8: the
# strong model) must be byte-identical to the original's (and with a
# byte-order mark in front), and `analyze --watch` must find the same leaking objects
# with the same retained sizes. (2) A hand-written graph shaped like an iOS view controller
# retaining itself through a block: `cycles` finds the cycle, an `unowned` back reference
# breaks it, and a root keeps what it should. (3) Bad input: exit 3 with the offset.
set -euo pipefail
: "${LEAKRAY:?}" "${LEAKRAY_SRC:?}" "${LEAKRAY_BUILD:?}"
fail() { echo "FAIL: $*" >&2; exit 1; }
. "$LEAKRAY_SRC/tests/e2e/need_lib.bash"
need_tools javac java python3
W="$LEAKRAY_BUILD/tmp/jsonl_graph"
rm -rf "$W"
mkdir -p "$W/classes"
javac -d "$W/classes" "$LEAKRAY_SRC"/tests/programs/leaks/*.java
java -cp "$W/classes" com.example.LeakDemo "$W/demo.hprof" >/dev/null
FIX=${LEAKRAY_FIXTURES:-$LEAKRAY_SRC/../shared/fixtures}

same() { # same VERB-ARGS... : output on the original and on its .jsonl copy
    local src=$1 copy=$2
    shift 2
    "$LEAKRAY" "$@" --json --no-timing "$src" >"$W/a.json" 2>&1 || true
    "$LEAKRAY" "$@" --json --no-timing "$copy" >"$W/b.json" 2>&1 || true
    cmp -s "$W/a.json" "$W/b.json" || { diff "$W/a.json" "$W/b.json" | head -5 >&2;
        fail "$* differs between $src and its .jsonl copy"; }
}

inputs=("$W/demo.hprof")
[ -f "$FIX/hprof/dialer.android-hprof" ] && inputs+=("$FIX/hprof/dialer.android-hprof")
[ -f "$FIX/v8/heap-1.heapsnapshot" ] && inputs+=("$FIX/v8/heap-1.heapsnapshot")
[ "${#inputs[@]}" = 3 ] || [ "${CI:-}" != true ] || fail "fixtures missing under CI=true"
for src in "${inputs[@]}"; do
    copy="$W/$(basename "$src").jsonl.gz"
    "$LEAKRAY" convert "$src" -o "$copy" >/dev/null
    "$LEAKRAY" info --json --no-timing "$copy" >"$W/info.json"
    grep -q '"format": "graph"' "$W/info.json" || fail "$copy not read as the graph format"
    same "$src" "$copy" top --top 50 --model strong
    # A V8 copy keeps sizes and edges but not DevTools' class keys and distances.
    case "$src" in *.heapsnapshot) continue ;; esac
    same "$src" "$copy" histo
    same "$src" "$copy" histo --retained
    same "$src" "$copy" top --top 50
done
# a UTF-8 byte-order mark before the first line (a Windows tool's) changes nothing
{ printf '\xef\xbb\xbf'; gzip -dc "$W/demo.hprof.jsonl.gz"; } >"$W/bom.jsonl"
same "$W/demo.hprof.jsonl.gz" "$W/bom.jsonl" histo
# analyze --watch: the same leaking objects with the same retained sizes (the paths may differ
# where they used what the format does not carry: Shark's ArrayList[i] view needs field bytes,
# a Java local's thread needs the stack traces)
copy="$W/demo.hprof.jsonl.gz"
for f in "$W/demo.hprof" "$copy"; do
    "$LEAKRAY" analyze --json --no-timing --watch com.example.Page "$f" >"$W/an.json" || [ $? = 1 ]
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1]));
print(d["leaking_objects"], sorted((t["leaking_object"], t["elements"][-1]["retained_bytes"],
      t["elements"][-1]["class"]) for t in d["traces"]))' "$W/an.json" >>"$W/an.txt"
done
[ "$(sed -n 1p "$W/an.txt")" = "$(sed -n 2p "$W/an.txt")" ] || fail "analyze --watch differs"
grep -q '^10 ' "$W/an.txt" || fail "analyze --watch found $(cut -d' ' -f1 "$W/an.txt" | head -1)"

# (2) an iOS-shaped retain cycle: controller -> block -> controller
cat >"$W/ios.jsonl" <<'G'
{"leakray_graph": 1, "format": "ios-scan"}
{"class": 1, "name": "CheckoutViewController"}
{"class": 2, "name": "__NSMallocBlock__"}
{"class": 3, "name": "UIWindow"}
{"node": "0x1000", "class": 3, "size": 64}
{"node": "0x2000", "class": 1, "size": 512, "label": "checkout"}
{"node": "0x3000", "class": 2, "size": 48}
{"node": "0x4000", "class": 1, "size": 512}
{"node": "0x5000", "class": 2, "size": 48}
{"edge": ["0x2000", "0x3000"], "name": "completion"}
{"edge": ["0x3000", "0x2000"], "name": "self"}
{"edge": ["0x4000", "0x5000"], "name": "completion"}
{"edge": ["0x5000", "0x4000"], "name": "self", "strength": "unowned"}
{"edge": ["0x1000", "0x4000"], "name": "rootViewController"}
{"edge": ["0x1000", "0x9999"], "name": "dangling"}
{"root": "0x1000", "kind": "global", "name": "AppDelegate.window"}
G
"$LEAKRAY" cycles --json --no-timing --class CheckoutViewController "$W/ios.jsonl" >"$W/cy.json"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); c=d["cycles"];
assert d["n_cycles"] == 1 and c[0]["length"] == 2 and c[0]["count"] == 1, d
assert "CheckoutViewController.completion" in c[0]["signature"], c[0]["signature"]' "$W/cy.json" ||
    fail "cycles on the iOS-shaped graph"
"$LEAKRAY" top --json --no-timing "$W/ios.jsonl" >"$W/top.json"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1]));
assert d["reachable_objects"] == 3 and d["objects"][0]["retained"] == 64 + 512 + 48, d' \
    "$W/top.json" || fail "unowned edge kept its target alive, or the root is wrong"
grep -q dangling_reference <<<"$("$LEAKRAY" info --json --no-timing "$W/ios.jsonl")" ||
    fail "dangling edge not counted"
# an edge of kind weak holds nothing, and says so (its strength weak unless told)
printf '%s\n' '{"leakray_graph": 1}' '{"node": 1}' '{"node": 2}' \
    '{"edge": [1, 2], "name": "w", "kind": "weak"}' '{"root": 1, "kind": "global"}' >"$W/weak.jsonl"
[ "$("$LEAKRAY" sql "$W/weak.jsonl" "SELECT kind || ' ' || strength FROM edges" | tail -1)" = \
    "weak weak" ] || fail "a weak edge's strength"
# unreachable leaking objects come by id, whatever the file's order (Shark's order; a ZGC
# dump's records are not in address order)
printf '%s\n' '{"leakray_graph": 1}' '{"class": 1, "name": "Screen"}' \
    '{"node": "0x30", "class": 1}' '{"node": "0x10", "class": 1}' '{"node": "0x20", "class": 1}' \
    '{"root": "0x20", "kind": "global"}' >"$W/unr.jsonl"
"$LEAKRAY" analyze --json --no-timing --watch Screen "$W/unr.jsonl" >"$W/unr.json" || [ $? = 1 ]
python3 -c 'import json,sys; d=json.load(open(sys.argv[1]));
assert [u["id"] for u in d["unreachable_objects"]] == ["0x10", "0x30"], d["unreachable_objects"]' \
    "$W/unr.json" || fail "unreachable objects not in id order"

# (3) bad input
printf '{"node": 1}\n' >"$W/nohead.jsonl"
printf '{"leakray_graph": 1}\n{"node": 1, "size": -4}\n' >"$W/neg.jsonl"
printf '{"leakray_graph": 1}\n{"edge": [1, 2], "kind": "bogus"}\n' >"$W/kind.jsonl"
printf '{"leakray_graph": 1}\n{"node": 1, "label": "cut' >"$W/cut.jsonl"
# a second record on a line would be lost: refused where it starts
printf '{"leakray_graph": 1}\n{"node": 1} {"node": 2}\n' >"$W/two.jsonl"
printf '{"leakray_graph": 1}\n{"class": 2, "name": "a"}\n{"class": 2, "name": "b"}\n' \
    >"$W/dup.jsonl"
# values the format does not have are refused, not read as a default
printf '{"leakray_graph": 1, "size_model": "banana"}\n' >"$W/model.jsonl"
printf '{"leakray_graph": 1}\n{"node": 1, "label": {"a": 1}}\n' >"$W/label.jsonl"
printf '{"leakray_graph": 1}\n{"edge": [1, 2], "name": "x", "kind": "hidden"}\n' >"$W/hidden.jsonl"
for f in "neg 0x" "kind 0x" "cut 0x" "two 0x21: bytes after the object's closing brace" \
         "dup 0x39: class id 2 defined twice" "model 0x24: unknown size_model" \
         "label 0x2a: \"label\" must be a string" \
         "hidden 0x2f: a hidden edge's name must be its index"; do
    set -- $f
    rc=0
    "$LEAKRAY" info "$W/$1.jsonl" >/dev/null 2>"$W/err" || rc=$?
    [ "$rc" = 3 ] || fail "$1.jsonl exited $rc, not 3"
    grep -q "$1.jsonl: offset ${f#* }" "$W/err" || fail "$1.jsonl: $(cat "$W/err")"
done
rc=0
"$LEAKRAY" info "$W/nohead.jsonl" >/dev/null 2>&1 || rc=$?
[ "$rc" = 3 ] || fail "a file without the header exited $rc, not 3"
echo "jsonl_graph: ok"
