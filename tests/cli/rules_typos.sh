#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# rules_typos.sh: a user's rules file whose inspect or library-leak rule names a field its
# class lacks, a static as an instance field, or a class one typo away from one the dump has,
# (also in a find-if) is warned of (the rule never applies: a library leak stayed an application leak, without a
# word); a `when` naming no build fact is an error (it was quietly false). A class the dump
# lacks with no near name is a shared file's rule for another program: no warning. (And
# `instances` of an interface says why it finds none, and so does an inspector of one.) A
# comparison of a field with a literal of a type it can never equal is warned of too, and an
# instanceof of a misspelt class or of an interface.
set -euo pipefail
. "$(dirname "$0")/lib/common.bash"
cli_init rules-typos
cli_target_dump
cat >"$T/typos.rules" <<'EOT'
inspect CliTarget$Known if cuont == 42 -> leaking "typo field"
library-leak static CliTarget#KNOWNN description "typo static"
library-leak instance CliTarget#KNOWN description "a static named as instance"
inspect CliTarget$Knwn -> label "typo class"
library-leak static com.example.Elsewhere#sInstance description "another program's"
inspect CliTarget$Known if count == 42 -> label "right"
library-leak instance CliTarget$Known#next description "right"
inspect CliTarget$Known -> leaking "typo in find-if" find-if cuont == 42
EOT
run analyze "$DUMP" --rules "$T/typos.rules" --no-suspects --no-timing
expect_rc 0
expect_err 'typos.rules: line 1: CliTarget\$Known has no field .cuont.'
expect_err 'typos.rules: line 2: CliTarget has no static field KNOWNN'
expect_err 'typos.rules: line 3: CliTarget#KNOWN is a static field, not an instance one'
expect_err 'typos.rules: line 4: the dump has no class CliTarget\$Knwn \(CliTarget\$Known\?\)'
expect_err 'typos.rules: line 8: CliTarget\$Known has no field .cuont.'
[ "$(grep -c warning "$T/err")" = 5 ] || fail "warnings: $(cat "$T/err")"
# said in line order (the inspect rules' came before the reference rules')
[ "$(grep -o 'typos.rules: line [0-9]*' "$T/err" | grep -o '[0-9]*$' | tr '\n' ' ')" = "1 2 3 4 8 " ] ||
    fail "warnings out of line order: $(cat "$T/err")"
# a comparison no value of the field's type satisfies (Java would not compile it) is warned
# of: a number against a string (a one-character one compares its code point), a String
# against a number, a char against a longer string; the ones that can hold are not
cat >"$T/types.rules" <<'EOT'
inspect CliTarget$Known if count == "42" -> leaking "int as string"
inspect CliTarget$Known if name == 42 -> leaking "an Object field: any type, said nothing of"
inspect CliTarget$Known if letter == "ZZ" -> leaking "char as long string"
inspect CliTarget$Known if flag != "true" -> leaking "boolean as string"
inspect CliTarget$Known if letter == "Z" -> label "char right"
inspect CliTarget$Known if count == 42 && name == "leakray-known" && ratio < 1 -> label "right"
inspect CliTarget$Known if name == null -> label "null is fine"
inspect CliTarget$Known if count == "*" -> label "one character: its code point"
inspect CliTarget$Known if !(count == "42") -> label "under !, true for every object"
inspect CliTarget$Known if !(name instanceof java.lang.CharSequence) -> label "the same"
EOT
run analyze "$DUMP" --rules "$T/types.rules" --no-suspects --no-timing
expect_rc 0
expect_err "types.rules: line 1: CliTarget\\\$Known's count is an int, compared with the string \"42\" \(write the number without quotes\): the rule never applies"
expect_err "types.rules: line 3: CliTarget\\\$Known's letter is a char, compared with the string \"ZZ\""
expect_err "types.rules: line 4: CliTarget\\\$Known's flag is a boolean"
[ "$(grep -c warning "$T/err")" = 3 ] || fail "type warnings: $(cat "$T/err")"
# instanceof a class a typo away from one the dump has, or of an interface (a heap dump
# records no interfaces): never true, and warned of (--strict: exit 2); of a real class, not
run analyze "$DUMP" --watch 'CliTarget$Known' --leaking-if 'name instanceof java.lang.Strng' \
    --no-suspects --no-timing --strict
expect_rc 2
expect_err "the dump has no class java.lang.Strng \(java.lang.String\?\): instanceof it is never true"
run analyze "$DUMP" --watch 'CliTarget$Known' --leaking-if 'name instanceof java.lang.CharSequence' \
    --no-suspects --no-timing
expect_err "java.lang.CharSequence has no instance and no subclass in this dump \\(an interface"
run analyze "$DUMP" --watch 'CliTarget$Known' --leaking-if 'name instanceof java.lang.String' \
    --no-suspects --no-timing --fail-on-leak
expect_rc 1
[ ! -s "$T/err" ] || fail "instanceof a real class: $(cat "$T/err")"
# a leaking verdict's reason naming a missing value shows "?" there (it printed the template)
printf 'inspect CliTarget$Known if count == 42 -> leaking "{cuont} known"\n' >"$T/tpl.rules"
run analyze "$DUMP" --rules "$T/tpl.rules" --no-suspects --no-timing
expect_out 'Leaking: YES \(\? known\)'
printf 'library-leak static CliTarget#KNOWN when APi >= 21\n' >"$T/when.rules"
run analyze "$DUMP" --rules "$T/when.rules" --no-suspects --no-timing
expect_rc 3
expect_err "when.rules:1: when: 'APi' is no build fact"
# a `when` naming a build fact the dump lacks is false as a whole, under `!` too: on a JVM
# dump `when !(API >= 29)` made the application's own leak that rule's library leak
printf 'library-leak static CliTarget#KNOWN when !(API >= 29) description "old Android"\n' \
    >"$T/notapi.rules"
run analyze "$DUMP" --rules "$T/notapi.rules" --watch 'CliTarget$Known' --no-suspects --no-timing
expect_out '^1 APPLICATION LEAKS'
expect_out '^0 LIBRARY LEAKS'
# an inspector of an interface never runs (a Shark ObjectInspector ported as is): said
printf 'inspect java.lang.Runnable -> label "a task"\n' >"$T/iface.rules"
run analyze "$DUMP" --rules "$T/iface.rules" --no-suspects --no-timing
expect_err 'iface.rules: line 1: java.lang.Runnable has no instance and no subclass in this dump'
# instances of an interface: none, and said why (its implementations are no subclasses)
run instances "$DUMP" java.lang.Runnable --subclasses --no-timing
expect_rc 0
expect_err 'java.lang.Runnable has no instance and no subclass in this dump'
run instances "$DUMP" 'CliTarget$Known' --no-timing
[ ! -s "$T/err" ] || fail "a class with instances: $(cat "$T/err")"
run instances "$DUMP" 'CliTarget$Known' --subclasses --no-timing
[ ! -s "$T/err" ] || fail "--subclasses on a dump with a class hierarchy: $(cat "$T/err")"
# --subclasses on a V8 snapshot (constructors, no hierarchy: Node's Buffer extends
# Uint8Array) counted the class alone under "and subclasses", unsaid
V8SMALL=$LEAKRAY_SRC/tests/data/browser/browser-final.heapsnapshot.gz
for verb in instances path; do
    if [ $verb = path ]; then
        run path "$V8SMALL" --class Object --merged --subclasses --no-timing
    else
        run instances "$V8SMALL" Object --subclasses --no-timing
    fi
    expect_rc 0
    expect_err 'warning: --subclasses: this dump records no class hierarchy .* only Object itself is counted'
    if grep -q 'and subclasses' "$T/out"; then fail "$verb: the title still says 'and subclasses'"; fi
done
# a hidden class named as the JVM names it (jmap -histo: Foo$$Lambda/0x...): the dump's
# name has '+' there, and the warning and the "no class" error say so
run analyze "$DUMP" --watch 'CliTarget$$Lambda$7/0x0000000800c0a000' --no-suspects --no-timing
expect_err 'no class of that name \(a heap dump writes a hidden class.s name with .\+.'
run instances "$DUMP" 'CliTarget$$Lambda$7/0x0000000800c0a000' --no-timing
expect_rc 2
expect_err 'where the JVM.s has ./.: CliTarget\$\$Lambda\$7\+0x\.\.\.\)'
# a nested class named as source code names it, and one whose '$Inner' a shell took for a
# variable: the messages name the dump's class
run instances "$DUMP" CliTarget.Known --no-timing
expect_rc 2
expect_err 'no class named CliTarget.Known \(a nested class is written with .\$.: CliTarget\$Known\)'
run analyze "$DUMP" --watch CliTarget.Known --no-suspects --no-timing
expect_err 'no class of that name \(a nested class is written with .\$.: CliTarget\$Known\)'
run analyze "$DUMP" --watch CliTarget --no-suspects --no-timing
expect_err 'holds no instance of it \(CliTarget\$[A-Za-z]+ has instances: quote a name'
# histo's and top's --class take that spelling too (they matched nothing, silently)
hidden=$("$LEAKRAY" histo "$DUMP" --class '*+0x*' --no-timing | awk '$4 ~ /\+0x/ {print $4; exit}')
[ -n "$hidden" ] || fail "the dump has no hidden class to try"
jvm=${hidden/+0x//0x}
for v in histo top; do
    run $v "$DUMP" --class "$jvm" --no-timing
    expect_rc 0
    grep -qF "$hidden" "$T/out" || fail "$v --class '$jvm' did not list $hidden"
done
echo "rules_typos: ok"
