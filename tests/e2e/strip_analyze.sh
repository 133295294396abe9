#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# strip_analyze.sh: stripping keeps the leak analysis. For the leaking test program
# (tests/programs/leaks) and the two real Android fixtures (dialer.android-hprof, Dalvik;
# test-dump.hprof, ART with --mapping test-dump.map), `analyze --json` on the sanitized and
# on the shrunk dump gives the same leaking objects (ids), the same path to each (class,
# reference kind and name per step), the same Leaking statuses and the same signatures as on
# the original; sizes, string-valued labels and the text of String map keys naming a map entry
# (`HashMap["key"]`: sanitize blanks strings) may differ by design. Also: a failed strip
# leaves an existing OUT untouched and no temporary file beside it.
set -euo pipefail
: "${LEAKRAY:?}" "${LEAKRAY_SRC:?}" "${LEAKRAY_BUILD:?}"
. "$LEAKRAY_SRC/tests/e2e/need_lib.bash"
need_tools javac java python3
fail() { echo "FAIL: $*" >&2; exit 1; }
work=$LEAKRAY_BUILD/tmp/strip_analyze
rm -rf "$work"
mkdir -p "$work/classes"
javac -d "$work/classes" "$LEAKRAY_SRC"/tests/programs/leaks/*.java
java -Xmx64m -cp "$work/classes" com.example.LeakDemo "$work/demo.hprof"

# same NAME FILE ARGS...: strips FILE both ways and compares the analyses.
same() {
    local name=$1 f=$2
    shift 2
    "$LEAKRAY" strip "$f" -o "$work/$name.san.hprof" --mode sanitize >/dev/null ||
        fail "$name: sanitize exit $?"
    "$LEAKRAY" strip "$f" -o "$work/$name.shr.hprof" --mode shrink >/dev/null ||
        fail "$name: shrink exit $?"
    for v in orig san shr; do
        local in=$f
        [ "$v" = orig ] || in=$work/$name.$v.hprof
        "$LEAKRAY" analyze "$in" --json --no-timing "$@" >"$work/$name.$v.json" ||
            fail "$name: analyze of the $v dump exit $?"
    done
    python3 - "$work/$name" <<'PY' || fail "$name: analysis changed by strip"
import json, sys
base = sys.argv[1]
def ref_name(r):
    # a map entry named by its String key: the key's text is what sanitize blanks
    n = r.get("name")
    if r.get("type") == "array_entry" and n and n.startswith('"') and n.endswith('"'):
        return '"<string>"'
    return n
def summary(v):
    d = json.load(open(f"{base}.{v}.json"))
    out = []
    for t in d["traces"]:
        steps = tuple((e["class"], e["type"], e["leaking"],
                       e.get("reference", {}).get("type"), ref_name(e.get("reference", {})))
                      for e in t["elements"])
        out.append((t["elements"][-1]["id"], t["signature"], steps))
    groups = sorted((g["signature"], len(g["traces"])) for g in d["application_leaks"])
    libs = sorted((g["signature"], len(g["traces"])) for g in d["library_leaks"])
    return sorted(out), groups, libs, d["leaking_objects"], d["mode"]
o = summary("orig")
assert o[0], "no traces in the original: the comparison would be empty"
for v in ("san", "shr"):
    s = summary(v)
    for a, b, what in zip(o, s, ("traces", "application groups", "library groups",
                                 "leaking objects", "mode")):
        if a != b:
            print(f"{v}: {what} differ:\n  orig {a}\n  {v}  {b}")
            sys.exit(1)
print(f"{base.rsplit('/', 1)[1]}: {len(o[0])} traces identical after sanitize and shrink")
PY
}

same demo "$work/demo.hprof"

fx="${LEAKRAY_FIXTURES:-$LEAKRAY_SRC/../shared/fixtures}/hprof"
if [ -f "$fx/dialer.android-hprof" ] && [ -f "$fx/test-dump.hprof" ]; then
    same dialer "$fx/dialer.android-hprof"
    same testdump "$fx/test-dump.hprof" --mapping "$fx/test-dump.map" \
        --watch 'DumpedStuff$ObjectTree' --leaking-if 'left is null && right is null'
elif [ "${CI:-}" = true ]; then
    fail "fixtures missing in $fx"
else
    echo "SKIP (part): Android fixtures not found in $fx"
fi

# A heap dump segment that held only dropped arrays goes with them: VisualVM refuses a
# segment of length 0 ("Heap dump is broken"). Eight 4 MB arrays, each a segment of its own.
cat >"$work/Big.java" <<'JAVA'
public class Big {
    static final byte[][] KEPT = new byte[8][];
    public static void main(String[] a) throws Exception {
        for (int i = 0; i < 8; i++) KEPT[i] = new byte[4 << 20];
        java.lang.management.ManagementFactory.getPlatformMXBean(
            com.sun.management.HotSpotDiagnosticMXBean.class).dumpHeap(a[0], true);
    }
}
JAVA
javac -d "$work/classes" "$work/Big.java"
java -Xmx128m -cp "$work/classes" Big "$work/big.hprof"
"$LEAKRAY" strip "$work/big.hprof" -o "$work/big.shr.hprof" --mode shrink >/dev/null ||
    fail "shrink of big.hprof: exit $?"
for name in demo big; do # (ART writes empty segments itself: the HotSpot dumps only)
    python3 - "$work/$name.shr.hprof" <<'PY' || fail "$name.shr.hprof: a heap dump record of length 0"
import struct, sys
b = open(sys.argv[1], "rb").read()
o = b.index(b"\0") + 1 + 4 + 8  # header string, id size, timestamp
while o < len(b):
    tag, length = b[o], struct.unpack(">I", b[o + 5:o + 9])[0]
    assert not (tag in (0x0C, 0x1C) and length == 0), o
    o += 9 + length
PY
done
"$LEAKRAY" histo --no-timing "$work/big.shr.hprof" >/dev/null || fail "the shrunk big.hprof"

# A strip that fails (truncated input) leaves an existing OUT as it was, and no temporary.
mkdir "$work/keep"
printf 'previous contents\n' >"$work/keep/out.hprof"
# Cut in the middle of the heap dump records: a cut among the leading STRING/LOAD_CLASS records
# can land on a record boundary and leave a valid (heap-less) file.
cut=$("$LEAKRAY" info --json "$work/demo.hprof" |
    python3 -c 'import json,sys; d=json.load(sys.stdin)["dumps"][-1]; print(d["offset"] + d["length"] // 2)')
head -c "$cut" "$work/demo.hprof" >"$work/third.hprof"
for mode in sanitize shrink; do
    rc=0
    "$LEAKRAY" strip "$work/third.hprof" -o "$work/keep/out.hprof" --mode "$mode" 2>/dev/null || rc=$?
    [ "$rc" = 3 ] || fail "$mode of a truncated dump: exit $rc, want 3"
    [ "$(cat "$work/keep/out.hprof")" = "previous contents" ] || fail "$mode clobbered OUT"
    [ "$(ls -A "$work/keep")" = out.hprof ] || fail "$mode left files: $(ls -A "$work/keep")"
done
# sanitize zeroes what a String's text leaves behind too: its cached hash (a 4-digit PIN was
# found again from it by trying 10^4 candidates)
hashed() {
    "$LEAKRAY" sql "$1" "SELECT count(*) FROM objects o JOIN fields f ON f.id = o.id
        WHERE o.class = 'java.lang.String' AND f.name = 'hash' AND f.value <> 0" | tail -1
}
[ "$(hashed "$work/demo.hprof")" -gt 100 ] || fail "the program's dump has no hashed String"
[ "$(hashed "$work/demo.san.hprof")" = 0 ] ||
    fail "sanitize kept $(hashed "$work/demo.san.hprof") String hashes"
echo "PASS"
