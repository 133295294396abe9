#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# progress_tty.sh: the loading progress bar is drawn on stderr when it is a terminal, and
# only then. `script` (util-linux) gives leakray a pseudo-terminal. The shared CliTarget dump
# is loaded with tests/programs/audit2/fastclock.c preloaded (the monotonic clock runs fast),
# so the bar must draw whatever the machine's speed or load: frames "loading [###...] NN%"
# rising, then erased before the report; none with --no-progress, --json or a non-terminal
# stderr (which stays empty). A real-clock check would depend on how busy the machine is.
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
print("progress_tty: %d frames with the fast clock, %s%%" % (len(frames), "%, ".join(map(str, pcts))))
PY
echo "progress_tty: ok"
