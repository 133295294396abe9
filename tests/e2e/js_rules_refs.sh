#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# js_rules_refs.sh: reference rules name a V8 object's property as a JVM rule names a field
# (`library-leak instance Registry#listeners`, `ignore instance ...`): they matched JVM fields
# only, and on a Node heap the rule did nothing, silently, while the trace underlined the
# very reference it names. tests/programs/node/rules_refs.js keeps ten destroyed Widgets in
# a Registry's `listeners`, and three destroyed Panels in callbacks' scopes: a scope's
# variable is named with the quoted class, `library-leak instance "system / Context"#panel`
# (the documented form did not parse).
set -euo pipefail
: "${LEAKRAY:?}" "${LEAKRAY_SRC:?}" "${LEAKRAY_BUILD:?}"
. "$LEAKRAY_SRC/tests/e2e/need_lib.bash"
need_tools node python3
work="$LEAKRAY_BUILD/tmp/js_rules_refs"
rm -rf "$work"
mkdir -p "$work"
fail() { echo "FAIL: $*" >&2; exit 1; }
snap=$work/app.heapsnapshot
node --expose-gc "$LEAKRAY_SRC/tests/programs/node/rules_refs.js" "$snap" >/dev/null
inspect='inspect Widget if destroyed -> leaking "Widget {name} destroyed"'
printf '%s\n' "$inspect" >"$work/app.rules"
printf '%s\nlibrary-leak instance Registry#listeners description "registry keeps listeners"\n' \
    "$inspect" >"$work/lib.rules"
printf '%s\nignore instance Registry#listeners\n' "$inspect" >"$work/ign.rules"
for r in app lib ign; do
    rc=0
    "$LEAKRAY" analyze "$snap" --rules "$work/$r.rules" --no-suspects --json --no-timing \
        >"$work/$r.json" 2>"$work/$r.err" || rc=$?
    [ $rc = 0 ] || fail "$r: exit $rc: $(cat "$work/$r.err")"
done
python3 - "$work" <<'PY' || fail "reference rules on V8 properties"
import json, sys
w = sys.argv[1]
app, lib, ign = (json.load(open('%s/%s.json' % (w, r))) for r in ('app', 'lib', 'ign'))
widgets = lambda d: [t for t in d['traces'] if t['class'] == 'Widget']
# the application leak goes through Registry.listeners
assert len(app['application_leaks']) == 1 and not app['library_leaks'], app['application_leaks']
refs = [e['reference']['name'] for e in widgets(app)[0]['elements'] if e.get('reference')]
assert 'listeners' in refs, refs
# the library-leak rule makes it a library leak with that description
assert not lib['application_leaks'] and len(lib['library_leaks']) == 1, \
    (lib['application_leaks'], lib['library_leaks'])
assert 'registry keeps listeners' in json.dumps(lib['library_leaks']), lib['library_leaks']
assert len(widgets(lib)) == 10 and all(t['library_leak'] for t in widgets(lib))
# the ignore rule leaves the Widgets no path: unreachable, no leak through listeners
assert not ign['application_leaks'] and not ign['library_leaks'], ign['application_leaks']
assert len(ign['unreachable_objects']) == 10, len(ign['unreachable_objects'])
PY

# a scope's variable: both quoted forms
for form in '"system / Context"#panel' '"system / Context#panel"'; do
    printf '%s\nlibrary-leak instance %s description "captured"\n' \
        'inspect Panel if destroyed -> leaking "closed"' "$form" >"$work/scope.rules"
    "$LEAKRAY" analyze "$snap" --rules "$work/scope.rules" --no-suspects --json --no-timing \
        >"$work/scope.json" || fail "$form: exit $?"
    python3 - "$work/scope.json" <<'PY' || fail "$form: the scope variable's rule"
import json, sys
d = json.load(open(sys.argv[1]))
panels = [t for t in d['traces'] if t['class'] == 'Panel']
assert len(panels) == 3 and all(t['library_leak'] for t in panels), \
    [(t['class'], t['library_leak']) for t in d['traces']]
assert 'instance field system / Context#panel' in json.dumps(d['library_leaks'])
PY
done
# a property no Registry has, or a static (V8 objects have none): the rule never applies, said
printf '%s\n' 'library-leak instance Registry#listners' 'library-leak static Registry#listeners' \
    'library-leak instance Registry#listeners' >"$work/typo.rules"
"$LEAKRAY" analyze "$snap" --rules "$work/typo.rules" --no-suspects --no-timing \
    >/dev/null 2>"$work/typo.err" || [ $? = 1 ]
grep -q "typo.rules: line 1: no Registry of the dump has a reference named listners" \
    "$work/typo.err" || fail "property typo: $(cat "$work/typo.err")"
grep -q "typo.rules: line 2: static Registry#listeners: this dump's objects have no static" \
    "$work/typo.err" || fail "static on V8: $(cat "$work/typo.err")"
[ "$(grep -c warning "$work/typo.err")" = 2 ] || fail "warnings: $(cat "$work/typo.err")"
echo "js_rules_refs: ok"
