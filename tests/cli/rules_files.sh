#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# rules_files.sh: what a user's rules file says is what applies, and nothing it gets wrong is
# dropped without a word (docs/rules.md).
# - A field path whose last step names no field is missing, so every comparison with it is
#   false: `name.valuee is not null` held for every Thread (the path stood for `name`, a
#   char[] on JDK 8, which `name is not null` tests).
# - A bad line last in the file stops the load (exit 3, FILE:LINE); it was dropped when no
#   rule followed it. A byte that is not text is shown in hex.
# - A byte-order mark (a file saved by a Windows editor) is skipped: the first rule applies.
# - Each --leaking-if goes with the --watch before it; two for one --watch are refused.
# - A misspelt '@' name (@sise) stops the load: it read as missing data, its test quietly false
#   (in a condition or in a label's or reason's {PATH}).
# - A java-local or native-global rule on a dump with no thread locals or no JNI globals (a V8
#   heap) is said to match nothing: it excused nothing there, silently.
set -euo pipefail
. "$(dirname "$0")/lib/common.bash"
cli_init rules-files
cli_fixtures
D=$FIX/oracle_jdk8_05_x64.hprof

printf 'inspect java.lang.Thread if name.valuee is not null -> leaking "typo fires"\n' \
    >"$T/typo.rules"
run analyze --no-timing --rules "$T/typo.rules" "$D"
grep -q "typo fires" "$T/out" && fail "a missing last field made 'is not null' true"
printf 'inspect java.lang.Thread if name is not null -> leaking "name set"\n' \
    >"$T/right.rules"
run analyze --no-timing --rules "$T/right.rules" "$D"
expect_out "Leaking: YES \(name set\)"
run analyze --no-timing --watch java.lang.Thread --leaking-if 'name.valuee' "$D"
grep -q "APPLICATION LEAK" "$T/out" && ! grep -q "0 APPLICATION LEAKS" "$T/out" &&
    fail "--leaking-if on a missing last field found leaks"

printf 'inspect java.lang.Thread -> leaking "x"\n"ignore instance Foo#bar\n' >"$T/unterm.rules"
run analyze --no-timing --rules "$T/unterm.rules" "$D"
expect_rc 3
expect_err "unterm.rules:2: unterminated string"
printf 'inspect java.lang.Thread -> leaking "x"\n99999999999999999999999\n' >"$T/num.rules"
run analyze --no-timing --rules "$T/num.rules" "$D"
expect_rc 3
expect_err "num.rules:2: number out of range"
printf '\377inspect java.lang.Thread -> leaking "x"\n' >"$T/ff.rules"
run analyze --no-timing --rules "$T/ff.rules" "$D"
expect_rc 3
expect_err "ff.rules:1: unexpected character '\\\\xff'"

printf 'inspect java.lang.Thread if @sise > 1 -> leaking "x"\n' >"$T/at.rules"
run analyze --no-timing --rules "$T/at.rules" "$D"
expect_rc 3
expect_err "at.rules:1: unknown name '@sise'"
# in a template too: the whole label was dropped at every object, silently
printf 'inspect java.lang.Thread -> label "size {@sise} name={name}"\n' >"$T/tmpl.rules"
run analyze --no-timing --rules "$T/tmpl.rules" "$D"
expect_rc 3
expect_err "tmpl.rules:1: unknown name '@sise'"
printf 'inspect java.lang.Thread -> label "size {@size} name={name} {x.@class}"\n' >"$T/tmpl2.rules"
run analyze --no-timing --rules "$T/tmpl2.rules" "$D"
expect_rc 0
# a rules file's watch rules get --watch's typo checks, named by the file: a class the dump
# lacks or a field its class lacks found nothing and read as "no leak", unwarned
printf 'watch com.example.Pagee if destroyed -> "gone"\nwatch java.lang.Thread if nmae == "x" -> "t"\n' \
    >"$T/typo.rules"
run analyze --no-timing --rules "$T/typo.rules" "$D"
expect_rc 0
expect_err "typo.rules: watch com.example.Pagee: the dump has no class of that name"
expect_err "typo.rules: watch condition: java.lang.Thread has no field 'nmae'"
run analyze --no-timing --strict --rules "$T/typo.rules" "$D"
expect_rc 2

printf '\357\273\277inspect java.lang.Thread -> leaking "bom rule"\r\n' >"$T/bom.rules"
run analyze --no-timing --rules "$T/bom.rules" "$D"
expect_out "Leaking: YES \(bom rule\)"
# each --leaking-if goes with the --watch given last before it: a --watch with none after it
# watches every instance (the condition went to the first --watch, by position)
run analyze --no-timing --no-suspects --json --watch java.lang.Thread \
    --watch java.lang.ThreadGroup --leaking-if 'maxPriority > 100' "$D"
[ "$(json_get 'sorted(set(t["class"] for t in d["traces"]))[0]')" = java.lang.Thread ] &&
    [ "$(json_get 'any(t["class"] == "java.lang.ThreadGroup" for t in d["traces"])')" = false ] ||
    fail "--leaking-if paired with the wrong --watch: $(json_get '[t["class"] for t in d["traces"]]')"
expect_err_none() { [ ! -s "$T/err" ] || fail "stderr: $(cat "$T/err")"; }
expect_err_none
run analyze --no-timing --watch java.lang.Thread --leaking-if 'priority > 5' \
    --leaking-if 'daemon' "$D"
expect_rc 2
expect_err "--watch java.lang.Thread has two --leaking-if: join them with &&"
printf 'library-leak java-local "main" description "x"\nlibrary-leak native-global Foo\n' \
    >"$T/roots.rules"
run analyze --no-timing --rules "$T/roots.rules" "$FIX/../v8/small.heapsnapshot"
expect_rc 0
expect_err "roots.rules: line 1: java-local rules match a Java thread's local variables, which \
this dump has none of"
expect_err "roots.rules: line 2: native-global rules match JNI global references, which this"
run analyze --no-timing --rules "$T/roots.rules" "$D"
[ ! -s "$T/err" ] || fail "java-local and native-global on a JVM dump: $(cat "$T/err")"
# a template's path may name a JavaScript property with a space in it
if command -v node >/dev/null; then
    node -e "class Person { constructor() { this['first name'] = 'Ada'; } }
        globalThis.people = [new Person()]; require('v8').writeHeapSnapshot('$T/sp.heapsnapshot')"
    printf 'watch Person -> "first={first name}"\n' >"$T/sp.rules"
    run analyze --no-timing --no-suspects --rules "$T/sp.rules" "$T/sp.heapsnapshot"
    expect_out 'first=Ada'
fi
echo "rules_files: ok"
