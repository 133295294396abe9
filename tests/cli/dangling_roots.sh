#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# dangling_roots.sh: a GC root that points at an object missing from the dump (LeakCanary
# issue #1516; hand-made valid-dangling-root.hprof = valid-minimal.hprof plus an UNKNOWN root
# to 0xDEAD0) is counted in the diagnostics and dropped, and every graph verb then gives the
# same answer as on the dump without that root: same retained sizes, path, leak report,
# convert output and cycle/dupes summaries, exit 0, no crash.
set -euo pipefail
. "$(dirname "$0")/lib/common.bash"
cli_init dangling
command -v python3 >/dev/null || skip "python3 not installed"
hm=$LEAKRAY_SRC/tests/corrupt/handmade
cd "$hm" # relative names keep the outputs comparable

run info --json --no-timing valid-dangling-root.hprof
expect_rc 0
json_eq '[(x["name"], x["count"]) for x in d["diagnostics"]]' '[["dangling_root", 1]]'
json_eq 'd["roots"]["count"]' 2

for v in "top" "top --by class" "histo --retained" "path @ 0x1020" "analyze" "cycles" \
         "cycles --class Foo" "dupes" "threads"; do
    for f in valid-minimal valid-dangling-root; do
        # shellcheck disable=SC2086
        run ${v/@/$f.hprof} $([ "${v#path}" = "$v" ] && echo "$f.hprof") --no-timing
        [ "$RC" = 0 ] || fail "$v on $f.hprof exited $RC"
        ! grep -q -e Sanitizer -e 'runtime error' "$T/err" || fail "$v on $f: sanitizer report"
        sed "s/$f/DUMP/g" "$T/out" >"$T/$f.out"
    done
    diff -u "$T/valid-minimal.out" "$T/valid-dangling-root.out" ||
        fail "'$v' differs when a root points at a missing object"
done
# The values themselves: the chain of three Foo objects under the JNI global root.
run top --json --no-timing valid-dangling-root.hprof
json_eq '[(o["id"], o["retained"]) for o in d["objects"][:3]]' \
    '[["0x1000", 96], ["0x1010", 64], ["0x1020", 32]]'
run path --json --no-timing valid-dangling-root.hprof 0x1020
json_eq 'd["root"]["kind"]' "JNI global"
json_eq '[p.get("id") for p in d["path"] if "id" in p]' '["0x1000", "0x1010", "0x1020"]'
run convert --json --no-timing valid-dangling-root.hprof -o "$T/dd.heapsnapshot"
json_eq 'd["dropped_objects"] == 0 and d["self_bytes"] == 96' true
echo "dangling_roots: ok"
