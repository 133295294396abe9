#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# obf_voice.sh: every verb speaks one way. On a dump of tests/programs/obf/a.java
# (obf_lib.bash) and the V8 fixtures: sizes in SI units as LeakCanary (1 kB = 1000 B);
# thousands separators and the columns count/shallow/retained/% heap in histo and top; no
# Total of retained sizes (classes overlap); LeakCanary's root names (System class, Java local
# variable) in info, path, show, dupes and analyze, never the HPROF identifiers; no
# zero-width space in analyze output that is not a terminal; a class object's JSON "class" is
# "class NAME" in top as in show and path; JSON carries timings only with --timing, all under
# "timing"; DevTools distances printed as DevTools does (a minus sign, never 100000003).
. "$(dirname "$0")/obf_lib.bash"
obf_init obf_voice
cd "$OBF"
D=o1.hprof
V8=${LEAKRAY_FIXTURES:-$LEAKRAY_SRC/../shared/fixtures}/v8

"$LEAKRAY" info --no-timing "$D" >info.txt
bytes=$(stat -c %s "$D")
mb=$(python3 -c "print('%.1f MB' % ($bytes / 1e6))")
grep -q "none, [0-9,]* bytes ($mb)" info.txt || fail "info: file size not in SI MB ($mb)"
grep -Eq '^ +[0-9,]+  System class$' info.txt || fail "info: no 'System class' roots"
grep -Eq '^ +[0-9,]+  Java local variable$' info.txt || fail "info: no 'Java local variable'"

"$LEAKRAY" histo --no-timing --retained "$D" >histo.txt
head -1 histo.txt | grep -Eq '^ num +count +shallow +retained +% heap  class name$' ||
    fail "histo --retained header: $(head -1 histo.txt)"
grep -Eq '^Total +[0-9]{1,3}(,[0-9]{3})+ +[0-9]{1,3}(,[0-9]{3})+  \([0-9]+ classes\)$' histo.txt ||
    fail "histo Total row: $(grep ^Total histo.txt)"
grep -Eq '^ +[0-9]+: .* [0-9]+\.[0-9]%  c$' histo.txt || fail "histo: no % heap for c"

"$LEAKRAY" top --no-timing --top 5 "$D" >top.txt
sed -n 2p top.txt | grep -Eq '^ num  id +retained +shallow +% heap  class name$' ||
    fail "top header: $(sed -n 2p top.txt)"
grep -Eq '^ +1: 0x[0-9a-f]+ +[0-9]{1,3}(,[0-9]{3})+ +[0-9,]+ +[0-9.]+%  ' top.txt ||
    fail "top row without separators or %: $(sed -n 3p top.txt)"

"$LEAKRAY" top --json --top 2000 "$D" >top.json
python3 - top.json <<'PY' || fail "top --json"
import json, sys
j = json.load(open(sys.argv[1]))
assert "timing" not in j and "analysis_timing" not in j, "timing without --timing"
objs = j["objects"]
assert not any(o["class"] == "<no class>" for o in objs), "a class object called <no class>"
cls = [o for o in objs if "describes" in o]
assert cls and all(o["class"] == "class " + o["describes"] for o in cls), cls[:2]
PY
"$LEAKRAY" top --json --timing --top 1 "$D" >top.json
python3 -c 'import json; j=json.load(open("top.json")); t=j["timing"]; assert t["load_ms"]>=0 and t["dominators_ms"]>=0 and "analysis_timing" not in j, j.keys()' ||
    fail "top --json --timing: timings not under one key"

"$LEAKRAY" top --json --top 400 "$D" >top.json
cart=$(python3 -c 'import json; print([o["id"] for o in json.load(open("top.json"))["objects"] if o["class"]=="b"][0])')
big=$(python3 -c 'import json; print([o["id"] for o in json.load(open("top.json"))["objects"] if o["class"]=="java.lang.Object[]" and o["shallow"] > 8100][0])')
"$LEAKRAY" show --no-timing "$D" "$big" >show.txt
grep -Eq '^length: +[0-9]{1,3}(,[0-9]{3})+ \(object elements\)$' show.txt || fail "show length: $(grep ^length show.txt)"
grep -Eq '^  \.\.\. [0-9]{1,3}(,[0-9]{3})+ more$' show.txt || fail "show: elements left without separators"
"$LEAKRAY" path --no-timing "$D" "$cart" >path.txt
grep -q '^GC root: System class' path.txt || fail "path root name: $(head -1 path.txt)"
"$LEAKRAY" analyze --no-timing "$D" --watch c --leaking-if 'a > 198' >analyze.txt
grep -q 'GC Root: System class' analyze.txt || fail "analyze root name differs from path's"
python3 -c 'import sys; sys.exit("\u200b" in open("analyze.txt", encoding="utf-8").read())' ||
    fail "analyze output to a file contains zero-width spaces"
grep -Eq 'Retaining [0-9.]+ k?B in' analyze.txt || fail "analyze sizes not in Shark's SI units"
for v in info path show dupes; do
    case $v in
    info | dupes) "$LEAKRAY" $v --no-timing "$D" >v.txt ;;
    *) "$LEAKRAY" $v --no-timing "$D" "$cart" >v.txt ;;
    esac
    grep -Eq 'sticky class|JNI global|Java frame' v.txt && fail "$v prints HPROF root identifiers"
done

if [ -f "$V8/snapshot1.heapsnapshot.gz" ]; then
    S=$V8/snapshot1.heapsnapshot.gz
    "$LEAKRAY" histo --no-timing --retained "$S" >v8.txt
    grep -Eq '^ +[0-9]+: .* −  RegExp$' v8.txt || fail "V8 system distance not shown as DevTools"
    "$LEAKRAY" top --no-timing --top 100 "$S" >>v8.txt
    "$LEAKRAY" show --no-timing "$S" @1 >>v8.txt
    grep -q '10000000[0-9]' v8.txt && fail "raw system distance 10000000x printed"
fi
echo "ok: one voice across verbs"
