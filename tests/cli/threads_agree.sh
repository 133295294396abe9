#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# threads_agree.sh: one number per thread. On every HPROF fixture, each thread `analyze`'s leak
# suspects attribute local variables to ("thread main keeps local variables with total size
# ...", JSON kind thread_locals) gets the figure `threads` prints for it ("retained with
# locals", JSON retained_bytes): MAT's Thread Overview, the thread object's retained size with
# its locals counted as its references, from the one function both verbs call. The suspect
# share is set to its lowest (1 %) so that more threads are suspects; text and JSON both.
# The report's Threads tab names and sizes each thread as `threads` does.
set -euo pipefail
. "$(dirname "$0")/lib/common.bash"
cli_init threads-agree
cli_fixtures

checked=0
for f in "$FIX"/*.hprof "$FIX"/*.hprof.gz "$FIX"/*.bz2 "$FIX"/*.bin "$FIX"/*.android-hprof; do
    [ -f "$f" ] || continue
    run analyze --json --no-timing --suspect-share 1 "$f"
    [ "$RC" = 0 ] || fail "analyze $f exited $RC"
    cp "$T/out" "$T/analyze.json"
    run threads --json --no-timing "$f"
    [ "$RC" = 0 ] || fail "threads $f exited $RC"
    cp "$T/out" "$T/threads.json"
    run analyze --no-timing --suspect-share 1 "$f"
    cp "$T/out" "$T/analyze.txt"
    run threads --no-timing "$f"
    cp "$T/out" "$T/threads.txt"
    # the report's Threads tab: the same names (char[] ones of JDK 8 and before too) and
    # the same two sizes, thread by thread
    run report --no-timing --format json -o "$T/model.json" "$f"
    [ "$RC" = 0 ] || fail "report $f exited $RC"
    python3 - "$T" <<'PY' || fail "$f: the report's threads are not threads'"
import json, sys
t = sys.argv[1]
th = json.load(open(t + "/threads.json"))["threads"]
rp = json.load(open(t + "/model.json"))["threads"]
assert len(rp) == min(len(th), 200), (len(rp), len(th))
for a, b in zip(th, rp):
    if not a.get("id"):
        continue
    assert (a["name"], a["retained_bytes"], a["object_retained_bytes"]) == \
        (b["name"], b["retained_bytes"], b["object_retained_bytes"]), (a, b)
PY
    n=$(python3 - "$T" "$f" <<'PY'
import json, re, sys
t, f = sys.argv[1], sys.argv[2]
a = json.load(open(t + "/analyze.json"))
th = {x["serial"]: x for x in json.load(open(t + "/threads.json"))["threads"]}
text_t = {}
for line in open(t + "/threads.txt", encoding="utf-8"):
    m = re.match(r'Thread "(.*)" serial (\d+) \(.*retained with locals ([\d,]+) bytes', line)
    if m:
        text_t[int(m.group(2))] = (m.group(1), m.group(3))
text_a = [m.groups() for m in re.finditer(
    r"thread (.*) keeps local variables with total size ([\d,]+) bytes",
    open(t + "/analyze.txt", encoding="utf-8").read())]
n = 0
for s in a.get("suspects", []):
    if s["kind"] != "thread_locals" or s["thread"].get("id") is None:
        continue
    ser = s["thread"]["serial"]
    if ser not in th or th[ser]["retained_bytes"] != s["retained_bytes"]:
        print("%s: thread serial %d: analyze %d, threads %s" % (
            f, ser, s["retained_bytes"], th.get(ser, {}).get("retained_bytes")))
        sys.exit(1)
    name, size = text_t[ser]
    if (name, size) not in text_a:
        print("%s: text: threads says %s %s, analyze %s" % (f, name, size, text_a))
        sys.exit(1)
    n += 1
print(n)
PY
) || fail "$n"
    checked=$((checked + n))
done
# oracle_jdk8_05_x64 (main), openjdk_jdk11_04_x64 (main) and more at a 1 % share
[ "$checked" -ge 2 ] || fail "only $checked thread suspects compared"
echo "threads_agree: ok ($checked threads)"
