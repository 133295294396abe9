#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# handmade.sh: small hand-made HPROF files (tests/corrupt/handmade/, written by
# make_handmade.py), each with one deliberate defect or none. `leakray info` on each must give
# the exit code and first stderr line recorded in NAME.expected:
#   line 1: "exit N"; line 2 (when N != 0): the first stderr line, exactly.
# The valid controls must also show their objects: `histo --json` on valid-minimal.hprof
# reports exactly 3 instances of Foo. Regenerate the expectations with
# LEAKRAY_UPDATE_GOLDEN=1 (then review the diff: each line must name the right offset).
set -euo pipefail
: "${LEAKRAY:?}" "${LEAKRAY_SRC:?}" "${LEAKRAY_BUILD:?}"
dir=$LEAKRAY_SRC/tests/corrupt/handmade
tmp=$LEAKRAY_BUILD/tmp/corrupt_handmade
rm -rf "$tmp"
mkdir -p "$tmp"
cd "$dir" # messages name the file as given: a relative name keeps them machine-independent
n=0 bad=0
for f in *.hprof; do
    name=${f%.hprof}
    n=$((n + 1))
    set +e
    timeout 20 "$LEAKRAY" info --no-progress "$f" >"$tmp/$name.out" 2>"$tmp/$name.err"
    rc=$?
    set -e
    first=$(head -1 "$tmp/$name.err")
    got="exit $rc"
    [ "$rc" = 0 ] || got=$(printf 'exit %s\n%s' "$rc" "$first")
    if [ "${LEAKRAY_UPDATE_GOLDEN:-}" = 1 ]; then
        printf '%s\n' "$got" >"$name.expected"
    fi
    if [ ! -f "$name.expected" ]; then
        echo "FAIL $name: no $name.expected (run with LEAKRAY_UPDATE_GOLDEN=1)"
        bad=$((bad + 1))
    elif [ "$got" != "$(cat "$name.expected")" ]; then
        echo "FAIL $name: got"
        printf '%s\n' "$got" | sed 's/^/    /'
        echo "  expected"
        sed 's/^/    /' "$name.expected"
        bad=$((bad + 1))
    elif grep -q -e 'Sanitizer' -e 'runtime error:' "$tmp/$name.err"; then
        echo "FAIL $name: sanitizer report"
        bad=$((bad + 1))
    else
        echo "ok   $name: $(echo "$got" | tr '\n' ' ')"
    fi
done

# The control must load its three Foo objects, so the cases above cannot pass by rejecting
# everything.
"$LEAKRAY" histo --json --no-timing valid-minimal.hprof >"$tmp/valid.json" ||
    { echo "FAIL: histo on valid-minimal.hprof exited $?"; exit 1; }
python3 - "$tmp/valid.json" <<'PY' || bad=$((bad + 1))
import json, sys
rows = {c["name"]: c["count"] for c in json.load(open(sys.argv[1]))["classes"]}
if rows.get("Foo") != 3:
    print(f"FAIL valid-minimal: Foo instances {rows.get('Foo')}, expected 3 ({rows})")
    sys.exit(1)
print("ok   valid-minimal: 3 Foo instances")
PY
[ "$n" -ge 10 ] || { echo "FAIL: only $n hand-made files"; exit 1; }
[ "$bad" = 0 ] || { echo "FAIL: $bad of $n hand-made dumps"; exit 1; }
echo "PASS: $n hand-made dumps"
