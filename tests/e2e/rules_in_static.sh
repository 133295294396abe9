#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# rules_in_static.sh: `this in static C#F` takes an array's elements as its members
# (tests/programs/rules/InStatic.java: three Screens in a static Object[], two in a static
# ArrayList, one in neither): the array's own elements were dropped as the collection
# object's own fields are, so no object stored in an array was ever "in" it, and `not in`
# held for all of them. The ArrayList's members, and `CACHE.elementData` read as an array,
# are the same two. A class object's @class, @simple and @super are the class it stands for
# (they read "", so `inspect class-object` could not name one class). A template prints a char
# field and a Character as their characters (they printed their codes: "233") and {@id} as the
# dump lists ids (0x... on HPROF; it printed a decimal no other output shows), and a char[]'s
# text whole (every character past ASCII printed "?"; a NUL cut it), a UTF-8 byte[] as its
# text, and a control character of any value (a String's newline split the label) as "?".
# "{}" prints as written, "{{" and "}}" as braces (such a label was dropped: its "path" read
# as missing).
set -euo pipefail
: "${LEAKRAY:?}" "${LEAKRAY_SRC:?}" "${LEAKRAY_BUILD:?}"
. "$LEAKRAY_SRC/tests/e2e/need_lib.bash"
need_tools javac java python3
work="$LEAKRAY_BUILD/tmp/rules_in_static"
rm -rf "$work"
mkdir -p "$work/classes"
fail() { echo "FAIL: $*" >&2; exit 1; }
javac -d "$work/classes" "$LEAKRAY_SRC/tests/programs/rules/InStatic.java"
java -Xmx64m -cp "$work/classes" InStatic "$work/s.hprof" >/dev/null
cat >"$work/in.rules" <<'R'
inspect InStatic$Screen if destroyed -> leaking "destroyed {title}"
inspect InStatic$Screen if this in static InStatic$Holder#ROOTS -> label "in ROOTS"
inspect InStatic$Screen if this not in static InStatic$Holder#ROOTS -> label "not in ROOTS"
inspect InStatic$Screen if this in static InStatic$Holder#CACHE -> label "in CACHE"
inspect InStatic$Screen if this in static InStatic$Holder#CACHE.elementData -> label "in elementData"
inspect class-object if @class == "InStatic$Holder" -> label "holder {@simple} < {@super}"
inspect InStatic$Screen -> label "grade {grade}{mark} at {@id}"
inspect InStatic$Screen -> label "sign {sign}"
inspect InStatic$Screen -> label "utf {utf} two {two}"
inspect InStatic$Screen -> label "set {} {{braces}} {{ spaced }} of {@simple}"
R
rc=0
"$LEAKRAY" analyze --no-timing --no-suspects --rules "$work/in.rules" --json "$work/s.hprof" \
    >"$work/a.json" 2>"$work/a.err" || rc=$?
[ $rc = 0 ] || fail "analyze: exit $rc: $(cat "$work/a.err")"
python3 - "$work/a.json" <<'PY' || fail "in static"
import json, sys
d = json.load(open(sys.argv[1]))
got = {}
for t in d['traces']:
    leak = t['elements'][-1]
    title = leak['reason'].split('destroyed ')[-1]
    got[title] = sorted(l for l in leak['labels'] if l.startswith(('in ', 'not in')))
    grade = [l for l in leak['labels'] if l.startswith('grade ')]
    assert grade == ['grade \u00e9Z at ' + leak['id']], (grade, leak['id'])
    sign = [l for l in leak['labels'] if l.startswith('sign ')]
    assert sign == ['sign \u00e9t\u00e9\U0001f600??z'], sign
    utf = [l for l in leak['labels'] if l.startswith('utf ')]
    assert utf == ['utf h\u00e9llo two a?b'], utf
    text = [l for l in leak['labels'] if l.startswith('set ')]
    assert text == ['set {} {braces} { spaced } of InStatic$Screen'], text
want = {'root1': ['in ROOTS'], 'root3': ['in ROOTS'], 'root5': ['in ROOTS'],
        'cache0': ['in CACHE', 'in elementData', 'not in ROOTS'],
        'cache1': ['in CACHE', 'in elementData', 'not in ROOTS'],
        'single': ['not in ROOTS']}
assert got == want, got
# a class object's @class is the class it stands for: the Holder class on the paths
holders = {tuple(e['labels']) for t in d['traces'] for e in t['elements']
           if e['class'] == 'InStatic$Holder' and e['type'] == 'class'}
assert holders == {('holder InStatic$Holder < java.lang.Object',)}, holders
PY
echo "rules_in_static: ok"
