#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# progress_tty.sh: the loading progress bar is drawn on stderr when it is a terminal, and
# only then. `script` (util-linux) gives leakray a pseudo-terminal. Two dumps:
#  - the shared CliTarget dump, loaded with tests/programs/audit2/fastclock.c preloaded (the
#    monotonic clock runs fast), so the bar must draw whatever the machine's speed: frames
#    "loading [###...] NN%" rising, then erased before the report; none with --no-progress,
#    --json or a non-terminal stderr (which stays empty);
#  - a dump of 2 million objects (tests/programs/audit2/ManyObjects.java) loaded at real
#    speed: when the load takes long enough (over 400 ms, so the two passes the bar covers
#    take over the 100 ms the first frame waits), the bar must appear.
set -euo pipefail
. "$(dirname "$0")/lib/common.bash"
cli_init progress_tty
command -v script >/dev/null || skip "no script(1) (util-linux) to give leakray a terminal"
command -v python3 >/dev/null || skip "no python3"
cc=${CC:-cc}
command -v "$cc" >/dev/null || skip "no C compiler for the clock shim"
cli_target_dump
"$cc" -shared -fPIC -O1 -o "$T/fastclock.so" "$LEAKRAY_SRC/tests/programs/audit2/fastclock.c" -ldl ||
    fail "could not build the clock shim"
# ASan insists on coming first in the library list; the shim only wraps clock_gettime.
asan="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"

# on a terminal: info, then with --no-progress, then with --json (each output kept apart)
tty_run() { # OUT ARGS...: leakray ARGS on a pseudo-terminal, the terminal's bytes in OUT
    local out=$1; shift
    local cmd="LD_PRELOAD='$T/fastclock.so' ASAN_OPTIONS='$asan' '$LEAKRAY'"
    for a in "$@"; do cmd+=" '$a'"; done
    script -qec "$cmd" /dev/null > "$out" < /dev/null || fail "leakray $* on a terminal failed"
}
tty_run "$T/tty.txt" info "$DUMP"
tty_run "$T/tty_np.txt" info --no-progress "$DUMP"
tty_run "$T/tty_json.txt" info --json "$DUMP"
# not a terminal: stderr must stay empty
LD_PRELOAD="$T/fastclock.so" ASAN_OPTIONS="$asan" "$LEAKRAY" info "$DUMP" > "$T/plain.out" 2> "$T/plain.err"
[ -s "$T/plain.out" ] || fail "no info output without a terminal"
[ ! -s "$T/plain.err" ] || fail "stderr not empty without a terminal: $(head -c 200 "$T/plain.err" | od -c | head -3)"

# the real-speed run
work=$T/many
mkdir -p "$work/classes"
javac -d "$work/classes" "$LEAKRAY_SRC/tests/programs/audit2/ManyObjects.java"
java -cp "$work/classes" com.example.audit2.ManyObjects "$work/many.hprof" 2000000
script -qec "'$LEAKRAY' info '$work/many.hprof'" /dev/null > "$T/many_tty.txt" < /dev/null ||
    fail "leakray info on a terminal failed (many objects)"
rm -f "$work/many.hprof"

python3 - "$T" <<'PY'
import re, sys
T = sys.argv[1]
def read(name):
    return open(T + "/" + name, "rb").read().decode("utf-8", "replace")
frame = re.compile(r"\rloading \[([#.]{30})\] +(\d+)%")
# 1. fast clock, terminal: several frames, filled in proportion, rising, then erased
tty = read("tty.txt")
frames = frame.findall(tty)
assert len(frames) >= 3, ("too few frames", tty[:300])
pcts = [int(p) for _, p in frames]
assert pcts == sorted(pcts) and pcts[-1] > pcts[0] and pcts[-1] <= 100, pcts
for bar, p in frames:
    fill = bar.count("#")
    assert bar == "#" * fill + "." * (30 - fill), bar
    assert abs(fill - int(p) * 30 / 100) <= 1, (bar, p)
last = tty.rfind("loading [")
erase = tty.find("\r" + " " * 70 + "\r", last)
report = tty.find("file:")
assert last < erase < report, ("bar not erased before the report", last, erase, report)
assert "\rloading" not in tty[report:], "bar drawn after the report started"
# 2. --no-progress and --json on a terminal: no bar, and the report is all there
for name, marker in (("tty_np.txt", "file:"), ("tty_json.txt", '"schema_version"')):
    out = read(name)
    assert "loading [" not in out, (name, out[:200])
    assert marker in out, (name, out[:200])
assert read("tty_json.txt").lstrip().startswith("{"), read("tty_json.txt")[:100]
# 3. real clock, 2 million objects: a bar whenever the load was long enough to need one
many = read("many_tty.txt")
m = re.search(r"load time: +([0-9.]+) (ms|s)\r?$", many, re.M)
assert m, many[-400:]
ms = float(m.group(1)) * (1000 if m.group(2) == "s" else 1)
n = len(frame.findall(many))
if ms > 400:
    assert n >= 1, ("no progress bar on a %.0f ms load" % ms, many[:200])
    print("progress_tty: %d frames on a %.0f ms load" % (n, ms))
else:
    assert n == 0 or ms > 100, (n, ms)
    print("progress_tty: real-speed load took %.0f ms (%d frames): too fast to require a bar" % (ms, n))
print("progress_tty: %d frames with the fast clock, %s%%" % (len(frames), "%, ".join(map(str, pcts))))
PY
echo "progress_tty: ok"
