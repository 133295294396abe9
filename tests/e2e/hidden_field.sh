#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# hidden_field.sh: a reference out of a field that a subclass declares again is named after
# the field that holds the next object. The program, written here, keeps a Sub whose
# superclass Base declares `Object ref` as Sub does; only Base.ref holds the 8 MB leak (Sub.ref
# holds a small string). Every line naming that reference says `HiddenField$Base.ref`, as
# Shark 2.14 names a hidden field (its declaring class: tests/e2e/expected/shark/edge.json,
# `BaseHolder`): the LARGEST RETAINERS path in text, its JSON `owner`, the HTML report's
# suspects, and the leak trace of `--watch` (which named it so already). The old suspect
# path named the first field of the name from the most-derived class: `HiddenField$Sub.ref`.
set -euo pipefail
: "${LEAKRAY:?}" "${LEAKRAY_SRC:?}" "${LEAKRAY_BUILD:?}"
. "$LEAKRAY_SRC/tests/e2e/need_lib.bash"
need_tools javac java python3
work="$LEAKRAY_BUILD/tmp/hidden_field"
rm -rf "$work"
mkdir -p "$work/src/hidden" "$work/classes"
fail() { echo "FAIL: $*" >&2; exit 1; }
cat > "$work/src/hidden/HiddenField.java" <<'JAVA'
package hidden;

import com.sun.management.HotSpotDiagnosticMXBean;
import java.lang.management.ManagementFactory;

public class HiddenField {
    static class Base {
        Object ref;
    }

    static class Sub extends Base {
        Object ref; // hides Base.ref: both are in every Sub
    }

    static class Leak {
        final byte[] data = new byte[8_000_000];
    }

    static Sub HOLD;

    // in a method of its own, so that no frame of main holds the Sub
    static void fill() {
        Sub s = new Sub();
        ((Base) s).ref = new Leak();
        s.ref = "small";
        HOLD = s;
    }

    public static void main(String[] args) throws Exception {
        fill();
        ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class)
                .dumpHeap(args[0], true);
    }
}
JAVA
javac -d "$work/classes" "$work/src/hidden/HiddenField.java"
dump="$work/hidden.hprof"
java -Xmx64m -cp "$work/classes" hidden.HiddenField "$dump"

"$LEAKRAY" analyze "$dump" --no-timing > "$work/a.txt"
"$LEAKRAY" analyze "$dump" --json --no-timing > "$work/a.json"
# the suspect path: text
sed -n '/LARGEST RETAINERS/,$p' "$work/a.txt" > "$work/suspects.txt"
grep -q '↓ HiddenField\$Base\.ref$' "$work/suspects.txt" ||
    fail "text: no HiddenField\$Base.ref step: $(cat "$work/suspects.txt")"
if grep -q 'HiddenField\$Sub\.ref' "$work/suspects.txt"; then
    fail "text: names the hiding field: $(cat "$work/suspects.txt")"
fi
# JSON: the reference out of the Sub has owner HiddenField$Base
python3 - "$work/a.json" <<'PY' || fail "json: $(cat "$work/a.json")"
import json, sys
d = json.load(open(sys.argv[1]))
refs = [(e["class"], e["reference"]) for s in d["suspects"] for e in s["path"] if "reference" in e]
out = [r for c, r in refs if c == "hidden.HiddenField$Sub"]
assert out, refs
assert out == [{"kind": "field", "name": "ref", "owner": "HiddenField$Base"}], out
PY
# HTML: the report's suspects section
"$LEAKRAY" report "$dump" -o "$work/r.html" --no-timing > /dev/null
grep -q 'HiddenField\$Base\.ref' "$work/r.html" || fail "html: no HiddenField\$Base.ref"
if grep -q 'HiddenField\$Sub\.ref' "$work/r.html"; then
    fail "html: names the hiding field"
fi
# the leak trace (Shark's naming: the declaring class of the field holding the next object)
"$LEAKRAY" analyze "$dump" --watch 'hidden.HiddenField$Leak' --no-suspects --no-timing \
    > "$work/t.txt"
grep -q '↓ HiddenField\$Base\.ref$' "$work/t.txt" || fail "trace: $(cat "$work/t.txt")"
echo "hidden_field: ok"
