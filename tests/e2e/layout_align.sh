#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# layout_align.sh: a heap of -XX:ObjectAlignmentInBytes=16 (compressed oops over 32 GB heaps)
# rounds every object to 16 bytes; the dump does not say so, but every object's address is a
# multiple of 16. tests/programs/layout/Aligned.java keeps 1,000 Pairs of two ints: 32 bytes
# each there (the sizes were rounded to 8: 24, a String 24 for the JVM's 32, and 151 classes
# of a small dump off the JVM's histogram), the list retaining 36,048 bytes. `info` says the
# alignment; the same program on the default alignment gives 24 and 28,040 and no such line.
set -euo pipefail
: "${LEAKRAY:?}" "${LEAKRAY_SRC:?}" "${LEAKRAY_BUILD:?}"
. "$LEAKRAY_SRC/tests/e2e/need_lib.bash"
need_tools javac java python3
work="$LEAKRAY_BUILD/tmp/layout_align"
rm -rf "$work"
mkdir -p "$work/classes"
fail() { echo "FAIL: $*" >&2; exit 1; }
javac -d "$work/classes" "$LEAKRAY_SRC/tests/programs/layout/Aligned.java"
java -Xmx64m -XX:ObjectAlignmentInBytes=16 -cp "$work/classes" Aligned "$work/a16.hprof"
java -Xmx64m -cp "$work/classes" Aligned "$work/a8.hprof"
check() { # DUMP PAIR_BYTES LIST_RETAINED
    "$LEAKRAY" histo "$1" --json --no-timing | python3 -c 'import json, sys
c = {x["name"]: x for x in json.load(sys.stdin)["classes"]}["Aligned$Pair"]
assert (c["count"], c["shallow"]) == (1000, 1000 * int(sys.argv[1])), c' "$2" ||
        fail "$1: histo of Aligned\$Pair, want 1000 x $2 bytes"
    "$LEAKRAY" instances "$1" java.util.ArrayList --sort retained --json --no-timing |
        python3 -c 'import json, sys
top = json.load(sys.stdin)["instances"][0]
assert top["retained"] == int(sys.argv[1]), top' "$3" ||
        fail "$1: the list's retained size, want $3"
}
check "$work/a16.hprof" 32 36048
check "$work/a8.hprof" 24 28040
"$LEAKRAY" info "$work/a16.hprof" | grep -q 'objects aligned to 16 bytes' ||
    fail "info does not say the alignment"
! "$LEAKRAY" info "$work/a8.hprof" | grep -q 'objects aligned to' ||
    fail "info says an alignment on a default heap"
"$LEAKRAY" info "$work/a16.hprof" --json | python3 -c 'import json, sys
assert json.load(sys.stdin)["object_layout"]["alignment"] == 16' ||
    fail "info --json object_layout.alignment"
echo "layout_align: ok"
