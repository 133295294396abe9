#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# native_orphan.sh: a program that ends while its copy scans leaves no partial report. The
# copy writes NAME.lrn.tmp, which the program names NAME.lrn once it has added its timings;
# killed meanwhile, it never does. bigheap.c (48 MiB of heap) is scanned through `native
# check`; its scanning copy is stopped as soon as it exists, the program is killed, and the
# copy let go: it must end at once, and no .lrn.tmp may stay in the report folder. A check
# after that on a live program still writes its report (the copy is not ended by mistake).
set -euo pipefail
. "$(dirname "$0")/native_lib.bash"
nat_init native_orphan
B=$NAT_TMP/bin
mkdir -p "$B"
gcc -O0 -g -fno-omit-frame-pointer -pthread -o "$B/bigheap" "$NAT_PROGS/bigheap.c" ||
    nat_fail "gcc could not build bigheap.c"

K=$NAT_TMP/scans
mkdir -p "$K"
# in a subshell: the kill below is the test's, not news for this shell's job table
(LEAKRAY_NATIVE_OUT="$K/scan.%p.%n.lrn" LD_PRELOAD="$NAT_LIB" \
    "$B/bigheap" "$NAT_TMP/pid" "$NAT_TMP/stop" >"$NAT_TMP/out" 2>"$NAT_TMP/err" || true) 2>/dev/null &
SUB=$!
for _ in $(seq 400); do [ -s "$NAT_TMP/pid" ] && break; sleep 0.05; done
[ -s "$NAT_TMP/pid" ] || { touch "$NAT_TMP/stop"; nat_fail "bigheap never wrote its pid"; }
PROG=$(cat "$NAT_TMP/pid")

# The live case first: a check completes, its report named, nothing left half-written.
"$LEAKRAY" native check "$PROG" --json --no-timing >"$NAT_TMP/live.json" ||
    { kill "$PROG"; nat_fail "native check of the live program failed"; }
ls "$K"/scan.*.lrn >/dev/null 2>&1 || { kill "$PROG"; nat_fail "no report from the live check"; }

python3 - "$LEAKRAY" "$PROG" "$K" <<'PY' || { kill -9 "$PROG" 2>/dev/null; nat_fail "orphan case"; }
import ctypes, glob, os, signal, subprocess, sys, time
lr, pid, keep = sys.argv[1], int(sys.argv[2]), sys.argv[3]
libc = ctypes.CDLL(None, use_errno=True)
SYS_KCMP = {"x86_64": 312, "aarch64": 272}.get(os.uname().machine)
if SYS_KCMP is None:
    sys.exit("no kcmp number known for " + os.uname().machine)

def own_copy(k):
    """the scanning copy has a memory of its own; the tracer shares the program's (KCMP_VM)"""
    r = libc.syscall(SYS_KCMP, pid, k, 1, 0, 0)
    if r < 0 and ctypes.get_errno() == 3:  # ESRCH: that child ended since it was listed
        raise ProcessLookupError
    if r < 0:
        sys.exit("kcmp: " + os.strerror(ctypes.get_errno()))
    return r != 0

def children(p):
    out = []
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                st = open("/proc/%s/stat" % d).read()
            except OSError:
                continue
            if int(st[st.rindex(")") + 2:].split()[1]) == p:
                out.append(int(d))
    return out

# The copy lives for the scan (about 80 ms here): a few tries catch it on a busy machine.
kid = None
for attempt in range(10):
    chk = subprocess.Popen([lr, "native", "check", str(pid), "--json"],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    t0 = time.monotonic()
    while kid is None and time.monotonic() - t0 < 20 and chk.poll() is None:
        for k in children(pid):
            try:
                if not own_copy(k):
                    continue
                # stopped once its .lrn.tmp exists: the copy first closes what it inherited,
                # and a copy stopped before it opened its report proves nothing
                while not glob.glob(keep + "/*.lrn.tmp") and time.monotonic() - t0 < 20:
                    if chk.poll() is not None:
                        raise ProcessLookupError  # that scan ended: try another
                    time.sleep(0.001)
                os.kill(k, signal.SIGSTOP)
                if glob.glob(keep + "/*.lrn.tmp"):
                    kid = k
                else:
                    os.kill(k, signal.SIGCONT)
            except ProcessLookupError:
                pass
    if kid is not None:
        break
    chk.wait()
    for f in glob.glob(keep + "/*.lrn"):
        os.unlink(f)
if kid is None:
    sys.exit("no scanning copy seen in 10 checks")
tmps = glob.glob(keep + "/*.lrn.tmp")
if not tmps:
    sys.exit("the stopped copy had written no .lrn.tmp yet: %s" % os.listdir(keep))
os.kill(pid, signal.SIGKILL)
time.sleep(0.2)
try:
    os.kill(kid, signal.SIGCONT)
except ProcessLookupError:
    pass  # it ended with the program, stopped or not: what is checked below

t0 = time.monotonic()
while time.monotonic() - t0 < 10:
    try:
        st = open("/proc/%d/stat" % kid).read()
    except OSError:
        break
    if st[st.rindex(")") + 2] in "ZX":
        break
    time.sleep(0.02)
else:
    os.kill(kid, signal.SIGKILL)
    sys.exit("the copy went on scanning after the program ended")
# The copy held the request's connection: `check` ends with it.
chk.wait(timeout=30)
left = glob.glob(keep + "/*.lrn.tmp")
if left:
    sys.exit("left behind: %s" % left)
print("orphan copy ended, nothing left")
PY
wait "$SUB"
echo "ok: native_orphan"
