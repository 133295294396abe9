#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# obf_typos.sh: typos fail loudly. On a dump of tests/programs/obf/a.java (class c with int
# field a, 200 instances): `analyze --watch` of a class the dump lacks, or a --leaking-if on
# a field no watched class has, warns on stderr and in the JSON "warnings" array and still
# runs; --strict, and --fail-on-leak always, turn it into exit 2 before any analysis. Correct
# watches give no warning (exit 1 under --fail-on-leak when they leak). Expression errors
# are bad command lines (exit 2, as `instances --where`), quote what was typed and call the
# end of the expression by its name. On a V8 snapshot a
# watched constructor's properties count as fields.
. "$(dirname "$0")/obf_lib.bash"
obf_init obf_typos
cd "$OBF"
D=o1.hprof
run() { rc=0; "$LEAKRAY" "$@" >out.txt 2>err.txt || rc=$?; }

run analyze --no-timing "$D" --watch com.example.Nope
[ "$rc" = 0 ] || fail "unknown --watch without --strict exits $rc"
grep -q '^leakray: warning: --watch com.example.Nope: the dump has no class of that name$' \
    err.txt || fail "unknown --watch: no warning: $(cat err.txt)"
run analyze --no-timing --json "$D" --watch com.example.Nope
python3 -c 'import json; j=json.load(open("out.txt")); assert j["warnings"]==["--watch com.example.Nope: the dump has no class of that name"], j.get("warnings")' ||
    fail "unknown --watch: no JSON warning"
for flag in --strict --fail-on-leak; do
    run analyze --no-timing "$D" --watch com.example.Nope $flag
    [ "$rc" = 2 ] || fail "unknown --watch with $flag exits $rc, want 2"
    [ -s out.txt ] && fail "unknown --watch with $flag still printed a report"
done

# An interface has no instances and its implementations are not its subclasses in a dump: a
# note says so, but an absent object is no typo (no exit 2, even under --fail-on-leak).
run analyze --no-timing "$D" --watch java.lang.Runnable --fail-on-leak
[ "$rc" = 0 ] || fail "--watch of an interface under --fail-on-leak exits $rc, want 0"
grep -q '^leakray: warning: --watch java.lang.Runnable: the dump holds no instance of it (for an interface: .*name the class that implements it)$' \
    err.txt || fail "--watch of an interface: no note: $(cat err.txt)"
run analyze --no-timing "$D" --watch c --strict
[ -s err.txt ] && fail "--watch of a class with instances warned: $(cat err.txt)"

# instances --where is the same language: a field the class does not have is said, not
# answered with "0 instances" alone
run instances --no-timing "$D" c --where 'pirce > 3'
[ "$rc" = 0 ] || fail "instances --where with a typo exits $rc"
grep -q "^leakray: warning: --where: c has no field 'pirce'$" err.txt ||
    fail "instances --where typo: no warning: $(cat err.txt)"
run instances --no-timing "$D" c --where 'a > 3'
[ -s err.txt ] && fail "instances --where on a real field warned: $(cat err.txt)"

run analyze --no-timing "$D" --watch c --leaking-if 'pirce > 3'
[ "$rc" = 0 ] || fail "unknown field without --strict exits $rc"
grep -q "warning: --leaking-if: c has no field 'pirce'" err.txt ||
    fail "unknown field: no warning: $(cat err.txt)"
run analyze --no-timing "$D" --watch c --leaking-if 'a > 3 && b.length >= 0' --strict
[ "$rc" = 0 ] || fail "known fields under --strict exit $rc: $(cat err.txt)"
[ -s err.txt ] && fail "known fields warned: $(cat err.txt)"
run analyze --no-timing "$D" --watch c --leaking-if 'a > 198 || pirce > 3' --fail-on-leak
[ "$rc" = 2 ] || fail "unknown field under --fail-on-leak exits $rc, want 2"
run analyze --no-timing "$D" --watch c --leaking-if 'a > 198' --fail-on-leak
[ "$rc" = 1 ] || fail "a real watched leak under --fail-on-leak exits $rc, want 1"

run analyze --no-timing "$D" --watch c --leaking-if 'a > 3 &&'
[ "$rc" = 2 ] || fail "truncated expression exits $rc, want 2 (a bad command line)"
grep -q "^leakray analyze: --leaking-if 'a > 3 &&': expected a field path or a value, got the end of the expression (see leakray analyze --help)$" \
    err.txt || fail "truncated expression message: $(cat err.txt)"
grep -q -- "->" err.txt && fail "message shows a token the user never typed"
run analyze --no-timing "$D" --watch c --leaking-if 'a >> 3'
grep -q "^leakray analyze: --leaking-if 'a >> 3': " err.txt || fail "expression not quoted: $(cat err.txt)"

V8=${LEAKRAY_FIXTURES:-$LEAKRAY_SRC/../shared/fixtures}/v8/heap-2.heapsnapshot
if [ -f "$V8" ]; then
    run analyze --no-timing "$V8" --watch NewObject --leaking-if 'label != null' --strict
    [ "$rc" = 0 ] || fail "V8 property 'label' not seen as a field: $(cat err.txt)"
    run analyze --no-timing "$V8" --watch NewObject --leaking-if 'lable != null' --strict
    [ "$rc" = 2 ] || fail "V8 misspelt property under --strict exits $rc"
fi
echo "ok: typos in --watch and --leaking-if are reported"
