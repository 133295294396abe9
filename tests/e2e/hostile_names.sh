#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# hostile_names.sh: names from a dump never drive the terminal. A V8 snapshot whose class
# names hold an OSC title sequence, a CSI screen clear and a C1 CSI (U+009B), and whose
# "(Global handles)" root category a right-to-left override, goes through the verbs that
# print such names in text (histo, top, show, analyze's traces and LARGEST RETAINERS' GC Root
# lines, instances, path --merged): no ESC, BEL, C1 byte or bidirectional override reaches
# stdout, the names show escaped (\x1b...), and the JSON keeps the exact names. So do thread
# names in `threads` (a JVM thread named with a line break, a tab and a screen clear), where
# `show` and `path` name the thread holding a root, and a watch's description in `analyze` (a
# BEL, a line break; its NUL shown as U+2400, the text going on): tests/programs/hostile.
set -euo pipefail
: "${LEAKRAY:?}" "${LEAKRAY_SRC:?}" "${LEAKRAY_BUILD:?}"
command -v python3 >/dev/null || { echo "SKIP: python3 not installed"; exit 77; }
work="$LEAKRAY_BUILD/tmp/hostile_names"
rm -rf "$work"
mkdir -p "$work"
fail() { echo "FAIL: $*" >&2; exit 1; }
snap="$work/hostile.heapsnapshot"
python3 - "${LEAKRAY_FIXTURES:-$LEAKRAY_SRC/../shared/fixtures}/v8/globals.heapsnapshot" "$snap" <<'PY'
import json, sys
src = sys.argv[1]
try:
    d = json.load(open(src))
except OSError:
    sys.exit(3)
s = d["strings"]
# rename the two most common object classes of this snapshot
s[s.index("Object")] = "Obj\x1b]0;pwn\x07ect\u009b31m"
s[s.index("TypedArray")] = "Typed\x1b[2JArray"
# and a root category: analyze's LARGEST RETAINERS names it in its GC Root line (with a
# right-to-left override, which reorders what a terminal shows after it)
s[s.index("(Global handles)")] = "(Global handles)\x1b]0;root\x07\u202e"
json.dump(d, open(sys.argv[2], "w"))
PY
check() { # check NAME FILE: no ESC, BEL or C1 (UTF-8 C2 80..9F) byte in FILE
    if LC_ALL=C grep -q $'[\x1b\x07]' "$2"; then fail "$1: raw control byte on stdout"; fi
    if LC_ALL=C grep -qP '\xc2[\x80-\x9f]' "$2"; then fail "$1: raw C1 control on stdout"; fi
}
n=0
oid=$("$LEAKRAY" sql "$snap" "SELECT id FROM objects WHERE class LIKE 'Obj%' LIMIT 1" | tail -1)
for cmd in "histo" "histo --retained" "top" "top --by class" "show $oid" \
           "analyze --watch Obj\x1b]0;pwn\x07ect\u009b31m" \
           "instances Typed\x1b[2JArray" "path --class Typed\x1b[2JArray --merged"; do
    read -r -a args <<<"$cmd"
    # the class argument holds the real ESC byte, as a user pasting the name would
    for i in "${!args[@]}"; do args[$i]=$(printf '%b' "${args[$i]}"); done
    out="$work/out.$n"
    "$LEAKRAY" "${args[0]}" "$snap" "${args[@]:1}" >"$out" 2>"$work/err.$n" ||
        fail "$cmd: exit $? ($(head -c 300 "$work/err.$n"))"
    check "$cmd" "$out"
    n=$((n + 1))
done
grep -qF 'Typed\x1b[2JArray' "$work/out.0" || fail "histo: the name is not shown escaped"
grep -qF 'Obj\x1b]0;pwn\x07ect\xc2\x9b31m' "$work/out.4" || fail "show: the name is not shown escaped"
grep -qF 'Obj\x1b]0;pwn\x07ect\xc2\x9b31m' "$work/out.5" || fail "analyze: the name is not shown escaped"
grep -qF 'GC Root: (GC roots) / (Global handles)\x1b]0;root\x07\xe2\x80\xae' "$work/out.5" ||
    fail "analyze: a root's name is not shown escaped"
if LC_ALL=C grep -qP '\xe2\x80\xae' "$work"/out.*; then fail "a raw right-to-left override"; fi
"$LEAKRAY" histo "$snap" --json >"$work/histo.json"
python3 - "$work/histo.json" <<'PY' || fail "histo --json lost the exact names"
import json, sys
names = {r.get("name") for r in json.load(open(sys.argv[1]))["classes"]}
sys.exit(0 if "Typed\x1b[2JArray" in names else 1)
PY
if command -v javac >/dev/null && command -v java >/dev/null; then
    mkdir -p "$work/classes"
    javac -d "$work/classes" "$LEAKRAY_SRC/tests/programs/hostile/HostileThread.java" \
        "$LEAKRAY_SRC/tests/programs/leaks/KeyedWeakReference.java"
    java -cp "$work/classes" HostileThread "$work/thread.hprof"
    "$LEAKRAY" threads "$work/thread.hprof" --no-timing >"$work/threads.txt"
    check threads "$work/threads.txt"
    grep -qF 'Thread "w\n\tx\x1b[2Jy" serial' "$work/threads.txt" ||
        fail "threads: the name is not shown escaped on one line"
    # the roots `show` and `path` name by their thread
    tid=$("$LEAKRAY" threads --json --no-timing "$work/thread.hprof" | python3 -c 'import json,sys
print([t["id"] for t in json.load(sys.stdin)["threads"] if "\x1b" in (t.get("name") or "")][0])')
    for v in show path; do
        "$LEAKRAY" "$v" "$work/thread.hprof" "$tid" --no-timing >"$work/$v.txt"
        check "$v (a root's thread)" "$work/$v.txt"
        grep -qF 'thread "w\n\tx\x1b[2Jy" (serial' "$work/$v.txt" ||
            fail "$v: the root's thread name is not shown escaped: $(cat "$work/$v.txt")"
    done
    # a watch description: escaped, and whole past its NUL
    "$LEAKRAY" analyze "$work/thread.hprof" --no-timing >"$work/analyze.txt" || true
    check "analyze (watch description)" "$work/analyze.txt"
    want="watching this because bell\x07 nl\n nul"$'\xe2\x90\x80'" end)"
    grep -qF "$want" "$work/analyze.txt" ||
        fail "analyze: description not escaped or cut: $(grep -a Leaking "$work/analyze.txt")"
    n=$((n + 4))
elif [ "${CI:-}" = true ]; then
    fail "javac/java required under CI=true"
fi
echo "ok: $n commands, no control byte from the dump reached the terminal"
