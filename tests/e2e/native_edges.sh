#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# native_edges.sh: the native verbs' edges a user meets first.
# - A frame-pointer backtrace through glibc (built without frame pointers) ends at the last
#   frame in code: vasprint.c's asprintf leak showed a stack address as "#1 ... in ??".
# - `native run -o FILE` writes the report 0600, as the monitor writes its own: it quotes
#   the first bytes of every leaked block.
# - `native check PID` on a process that does not exist says so (it blamed a missing monitor).
# - `path FILE @0x...` takes a block address with the @ that docs/native.md writes.
set -euo pipefail
. "$(dirname "$0")/native_lib.bash"
nat_init native_edges
B=$NAT_TMP/bin
mkdir -p "$B"
for p in vasprint noleak; do
    gcc -O0 -g -fno-omit-frame-pointer -pthread -o "$B/$p" "$NAT_PROGS/$p.c" ||
        nat_fail "gcc could not build $p.c"
done
umask 022
(cd "$B" && "$LEAKRAY" native run --json --no-timing --backtrace fp -o "$NAT_TMP/v.lrn" \
    -- ./vasprint) >"$NAT_TMP/v.json" || [ $? -eq 1 ] || nat_fail "native run vasprint failed"
python3 - "$NAT_TMP/v.json" <<'PY' || nat_fail "vasprint's backtrace"
import json, sys
d = json.load(open(sys.argv[1]))
g = [g for g in d["groups"] if g["bytes"] == 17]
assert len(g) == 1 and d["direct"]["bytes"] == 17, d["direct"]
fr = g[0]["frames"]
print("frames:", [(f.get("function"), f.get("module")) for f in fr], file=sys.stderr)
assert fr and all(f.get("module") for f in fr), "a frame outside every module"
assert fr[0]["module"].startswith("libc"), fr[0]
PY
mode=$(stat -c %a "$NAT_TMP/v.lrn")
[ "$mode" = 600 ] || nat_fail "native run -o wrote mode $mode, want 600"
# A pid that is free: above pid_max.
max=$(cat /proc/sys/kernel/pid_max)
rc=0
"$LEAKRAY" native check $((max + 1)) >"$NAT_TMP/check.out" 2>"$NAT_TMP/check.err" || rc=$?
[ $rc -ne 0 ] || nat_fail "native check on no process exited 0"
grep -q "no process $((max + 1))" "$NAT_TMP/check.err" ||
    nat_fail "native check on no process: $(cat "$NAT_TMP/check.err")"
(cd "$B" && "$LEAKRAY" native run --graph --no-timing -o "$NAT_TMP/g.lrn" -- ./noleak) \
    >/dev/null || nat_fail "native run --graph noleak failed"
head=$("$LEAKRAY" top "$NAT_TMP/g.lrn" --top 1 --json --no-timing | python3 -c \
    'import json,sys; print(json.load(sys.stdin)["objects"][0]["id"])')
"$LEAKRAY" path "$NAT_TMP/g.lrn" "@$head" --json --no-timing >"$NAT_TMP/p1.json" ||
    nat_fail "path @$head refused"
"$LEAKRAY" path "$NAT_TMP/g.lrn" "$head" --json --no-timing >"$NAT_TMP/p2.json"
cmp -s "$NAT_TMP/p1.json" "$NAT_TMP/p2.json" || nat_fail "path @$head differs from path $head"
rc=0
"$LEAKRAY" path "$NAT_TMP/g.lrn" "@@$head" >/dev/null 2>&1 || rc=$?
[ $rc -eq 2 ] || nat_fail "path @@id: exit $rc, want 2"
echo "native_edges: fp backtraces end in code, -o is 0600, check names a missing process, @0x ids"
