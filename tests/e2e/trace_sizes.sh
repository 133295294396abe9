#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# trace_sizes.sh: the retained sizes a leak trace prints come from the reachability its path
# uses. tests/programs/shark2/SizesDemo.java leaks a 33 kB page through a worker Thread's
# Runnable and a 67 kB page as a HashMap value, and keeps both in local variables of `main`,
# whose locals the path search ignores (as Shark does); the worker's own frame holds its
# Runnable as `this`, a Java local that Shark reads as a reference of the Thread. So the
# Thread must retain at least the 33 kB page and the HashMap at least the 67 kB one (Shark
# 2.14 prints 33.2 kB and 67.2 kB), never the 192 B / 160 B that frame roots of their own
# would leave them; and no path element whose size is printed (status not NO) may retain
# less than the leaking object below it. The groups come in Shark's order, each shown by the
# trace Shark shows (Shark 2.14's text report on this dump, scripts/shark-peer.sh). With
# --size-model shark every "Retaining" and "bytes retained" line equals Shark's.
set -euo pipefail
: "${LEAKRAY:?}" "${LEAKRAY_SRC:?}" "${LEAKRAY_BUILD:?}"
. "$LEAKRAY_SRC/tests/e2e/need_lib.bash"
need_tools javac java python3
work="$LEAKRAY_BUILD/tmp/trace_sizes"
rm -rf "$work"
mkdir -p "$work/classes"
javac -d "$work/classes" "$LEAKRAY_SRC"/tests/programs/leaks/KeyedWeakReference.java \
    "$LEAKRAY_SRC"/tests/programs/shark2/SizesDemo.java
java -cp "$work/classes" com.example.sizes.SizesDemo "$work/s.hprof" > /dev/null
"$LEAKRAY" analyze "$work/s.hprof" --json --no-timing --no-suspects > "$work/a.json"
"$LEAKRAY" analyze "$work/s.hprof" --no-timing --no-suspects > "$work/a.txt"
python3 - "$work/a.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert len(d["traces"]) == 8, len(d["traces"])
by_class = {}
for t in d["traces"]:
    els = t["elements"]
    leak = els[-1]["retained_bytes"]
    for e in els[:-1]:
        if "retained_bytes" in e and e["leaking"] != "NO":  # text prints no size for NO
            assert e["retained_bytes"] >= leak, (e["class"], e["retained_bytes"], leak)
            by_class.setdefault(e["class"], []).append(e["retained_bytes"])
assert min(by_class["java.lang.Thread"]) >= 33000, by_class["java.lang.Thread"]
assert min(by_class["java.util.HashMap"]) >= 67000, by_class["java.util.HashMap"]
# groups in Shark 2.14's order (its path trie, read depth first), each shown by the trace
# Shark shows: the first list element, not the last watched one
assert [g["short_description"] for g in d["application_leaks"]] == [
    "Thread.target", "SizesDemo.BACKLOG", "SizesDemo.SLOTS", "SizesDemo.HISTORY",
    "SizesDemo.REGISTRY"], [g["short_description"] for g in d["application_leaks"]]
shown = [d["traces"][g["traces"][0]]["elements"][-2]["reference"]["display"]
         for g in d["application_leaks"]]
assert shown == ["page", "[0]", "[0]", "[0]", '["registered-page"]'], shown
print("trace sizes ok: Thread %d B, HashMap %d B" % (by_class["java.lang.Thread"][0],
                                                     by_class["java.util.HashMap"][0]))
PY
grep -q '^│    Retaining 33\.[0-9] kB in [0-9]* objects$' "$work/a.txt" || { echo "FAIL: no 33 kB line" >&2; exit 1; }
# --size-model shark: every size line as Shark 2.14 prints it on this dump
# (tests/e2e/expected/shark/sizes.retaining.txt, from scripts/golden-shark.sh). Shark starts
# the leaking object's lines with U+200B; leakray writes it on a terminal only, so the
# comparison leaves it out.
"$LEAKRAY" analyze "$work/s.hprof" --no-timing --no-suspects --size-model shark |
    grep 'Retaining\|bytes retained' > "$work/shark-sizes.txt"
sed 's/\xe2\x80\x8b//g' "$LEAKRAY_SRC/tests/e2e/expected/shark/sizes.retaining.txt" \
    > "$work/shark-golden.txt"
diff -u "$work/shark-golden.txt" "$work/shark-sizes.txt" ||
    { echo "FAIL: --size-model shark figures differ from Shark's" >&2; exit 1; }
rc=0; "$LEAKRAY" analyze "$work/s.hprof" --size-model bogus > /dev/null 2>&1 || rc=$?
[ "$rc" = 2 ] || { echo "FAIL: --size-model bogus exit $rc" >&2; exit 1; }
echo "trace_sizes: ok"
