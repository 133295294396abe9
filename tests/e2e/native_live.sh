#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# native_live.sh: scans of a running multi-threaded program while it keeps allocating
# (tests/programs/native/busy.c: two workers churn malloc/free, main dropped 7 blocks of 99
# bytes), through both triggers: `leakray native check PID` (the abstract socket) three
# times, and `native check --signal` (SIGUSR2, the report lands in the --keep folder).
# Every scan must capture all threads and report exactly the 7 direct leaks; the program's
# output must equal its output without the monitor; the at-exit scan saved with -o renders
# again through `native report`. Also: thread leaks (threadleak.c) with their creation
# frames, backtrace modes and sampling, the innermost frames of blocks from every allocating
# hook, LD_PRELOAD dropped for exec'd children (bash), and
# a thread another tracer holds (the scan says its capture failed), and `check` on a process
# without the monitor (exit 2, one line). Huge pages: under plain LD_PRELOAD a scan of
# bigheap.c (48 MiB of heap) first puts glibc's heap on transparent huge pages (when the
# kernel offers them: THP not "never", MADV_COLLAPSE from Linux 6.1), and still finds its 3
# leaks; with LEAKRAY_NATIVE_HUGE_PAGES=0 (and THP in "madvise" mode) the heap stays on 4 KiB
# pages. A block a library's constructor allocated before the monitor's constructor ran is
# freed by the program without harm (ctor.c), and the one it dropped is a leak.
set -euo pipefail
. "$(dirname "$0")/native_lib.bash"
nat_init native_live
B=$NAT_TMP/bin
mkdir -p "$B"
for p in busy threadleak list bigheap lost aligned sleeper; do
    gcc -O0 -g -fno-omit-frame-pointer -pthread -o "$B/$p" "$NAT_PROGS/$p.c" ||
        nat_fail "gcc could not build $p.c"
done
gcc -shared -fPIC -O0 -g -fno-omit-frame-pointer -o "$B/libctorlib.so" "$NAT_PROGS/ctorlib.c" &&
    gcc -O0 -g -fno-omit-frame-pointer -o "$B/ctor" "$NAT_PROGS/ctor.c" -L"$B" -lctorlib \
        -Wl,-rpath,"$B" || nat_fail "gcc could not build ctor.c"

# The program alone, for its reference output.
touch "$NAT_TMP/stop-plain"
"$B/busy" "$NAT_TMP/pid-plain" "$NAT_TMP/stop-plain" >"$NAT_TMP/plain.out" ||
    nat_fail "busy failed without the monitor"

K=$NAT_TMP/scans
"$LEAKRAY" native run --json --no-timing --keep "$K" -o "$NAT_TMP/exit.lrn" -- \
    "$B/busy" "$NAT_TMP/pid" "$NAT_TMP/stop" >"$NAT_TMP/run.out" 2>"$NAT_TMP/run.err" &
RUN=$!
for _ in $(seq 200); do [ -s "$NAT_TMP/pid" ] && break; sleep 0.05; done
[ -s "$NAT_TMP/pid" ] || { kill $RUN; nat_fail "busy never wrote its pid"; }
PID=$(cat "$NAT_TMP/pid")
for i in 1 2 3; do
    "$LEAKRAY" native check "$PID" --json --no-timing >"$NAT_TMP/check$i.json" ||
        { touch "$NAT_TMP/stop"; nat_fail "native check $i failed"; }
done
"$LEAKRAY" native check --signal "$PID" >/dev/null || nat_fail "check --signal failed"
for _ in $(seq 200); do
    grep -l '^reason signal' "$K"/*.lrn >/dev/null 2>&1 && break
    sleep 0.05
done
SIG=$(grep -l '^reason signal' "$K"/*.lrn | head -1) || nat_fail "no report after the signal"
"$LEAKRAY" native report "$SIG" --json --no-timing >"$NAT_TMP/signal.json" ||
    nat_fail "native report of the signal scan failed"
# A thread some other tracer holds cannot be stopped: the scan must say so.
python3 - "$PID" "$NAT_TMP/seized" <<'PY' &
import ctypes, os, sys, time
libc = ctypes.CDLL(None, use_errno=True)
pid, flag = int(sys.argv[1]), sys.argv[2]
tid = max(int(t) for t in os.listdir(f"/proc/{pid}/task"))  # the last worker started
if libc.ptrace(0x4206, tid, 0, 0) != 0:  # PTRACE_SEIZE
    sys.exit(1)
open(flag, "w").close()
time.sleep(30)
PY
SEIZER=$!
for _ in $(seq 100); do [ -e "$NAT_TMP/seized" ] && break; sleep 0.05; done
[ -e "$NAT_TMP/seized" ] || nat_fail "could not ptrace a thread of busy"
"$LEAKRAY" native check "$PID" --json --no-timing >"$NAT_TMP/failed.json" ||
    nat_fail "check with a foreign tracer failed"
"$LEAKRAY" native check "$PID" --no-timing >"$NAT_TMP/failed.txt" ||
    nat_fail "text check with a foreign tracer failed"
kill $SEIZER
wait $SEIZER 2>/dev/null || true
grep -q "NOT captured (ptrace: permission denied)" "$NAT_TMP/failed.txt" ||
    nat_fail "text report does not say the capture failed: $(sed -n 2p "$NAT_TMP/failed.txt")"
touch "$NAT_TMP/stop"
wait $RUN || nat_fail "native run exited $?"
# With --json stdout is the report alone (-o or not), and the program's lines go to stderr.
grep -v '^leakray' "$NAT_TMP/run.err" >"$NAT_TMP/monitored.out" || true
cp "$NAT_TMP/run.out" "$NAT_TMP/exit.json"
python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$NAT_TMP/exit.json" ||
    nat_fail "stdout is no JSON document: $(head -c 300 "$NAT_TMP/run.out")"
sort "$NAT_TMP/plain.out" >"$NAT_TMP/plain.sorted"
sort "$NAT_TMP/monitored.out" >"$NAT_TMP/monitored.sorted"
cmp -s "$NAT_TMP/plain.sorted" "$NAT_TMP/monitored.sorted" ||
    nat_fail "program output changed under the monitor: $(diff "$NAT_TMP/plain.sorted" \
        "$NAT_TMP/monitored.sorted" | head -5)"
echo "ok: program output unchanged ($(wc -l <"$NAT_TMP/plain.out") lines)" >&2
"$LEAKRAY" native report "$NAT_TMP/exit.lrn" --json --no-timing >"$NAT_TMP/report.json" ||
    nat_fail "native report of the saved exit scan failed"
cmp -s "$NAT_TMP/report.json" "$NAT_TMP/exit.json" || true

(cd "$B" && "$LEAKRAY" native run --json --no-timing --thread-age 100 -- ./threadleak) \
    >"$NAT_TMP/threads.json" || nat_fail "threadleak run failed"
# Backtrace modes: libunwind finds the same frames; sampling and "none" keep the totals.
for mode in "--backtrace libunwind" "--sample 1M" "--backtrace none" "--depth 1"; do
    # shellcheck disable=SC2086
    (cd "$B" && "$LEAKRAY" native run --json --no-timing $mode -- ./list) \
        >"$NAT_TMP/list-${mode// /}.json" || nat_fail "list run with $mode failed"
done

# Blocks from a library constructor that ran before the monitor's. Under --json the
# program's own output goes to stderr, stdout holding the report alone.
"$LEAKRAY" native run --json --no-timing -- "$B/ctor" >"$NAT_TMP/ctor.out" \
    2>"$NAT_TMP/ctor.err" ||
    nat_fail "ctor under the monitor exited $? ($(head -c 300 "$NAT_TMP/ctor.err"))"
head -1 "$NAT_TMP/ctor.err" | grep -qx "allocated by a library constructor" ||
    nat_fail "ctor printed $(head -1 "$NAT_TMP/ctor.err")"
python3 - "$NAT_TMP/ctor.out" <<'PY' || nat_fail "ctor report"
import json, sys
d = json.load(open(sys.argv[1]))
ok = d["direct"] == {"blocks": 1, "bytes": 40} and d["indirect"]["blocks"] == 0
print(("ok: " if ok else "FAIL: ") + f"ctor: the constructor's 40-byte leak: {d['direct']}",
      file=sys.stderr)
sys.exit(0 if ok else 1)
PY

# Backtraces start at the program's call site whichever hook made the block: malloc and calloc
# (lost.c), posix_memalign, aligned_alloc, memalign and valloc (aligned.c), by frame pointers
# and by libunwind. The hooks have no frame of their own; their slow path must stand in the
# hook's place, so the two innermost frames are lose() and main(). No function name carries a
# symbol version.
for p in lost aligned; do
    for mode in fp libunwind; do
        (cd "$B" && "$LEAKRAY" native run --json --no-timing --backtrace "$mode" -- "./$p") \
            >"$NAT_TMP/frames-$p-$mode.json" || nat_fail "$p with --backtrace $mode failed"
    done
done
python3 - "$NAT_TMP" <<'PY' || nat_fail "innermost frames"
import json, sys
fails = 0
for p, groups in [("lost", 2), ("aligned", 4)]:
    for mode in ["fp", "libunwind"]:
        d = json.load(open(f"{sys.argv[1]}/frames-{p}-{mode}.json"))
        got = [[f["function"] for f in g["frames"][:2]] for g in d["groups"]]
        ok = len(got) == groups and all(f == ["lose", "main"] for f in got)
        # libc's frames by their names, no symbol version (`__libc_start_main@@GLIBC_2.34`)
        names = [f["function"] or "" for g in d["groups"] for f in g["frames"]]
        ok = ok and not any("@" in n for n in names)
        print(("ok: " if ok else "FAIL: ") + f"{p} {mode}: innermost frames {got}",
              file=sys.stderr)
        fails += not ok
sys.exit(1 if fails else 0)
PY

# Huge pages: AnonHugePages of bigheap before and after one scan, with the step on and off.
thp=$(cat /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null || echo "[never]")
kver=$(uname -r | awk -F'[.-]' '{print $1 * 1000 + $2}')
huge_run() { # TAG ENV...: one scan of bigheap; writes TAG.json and TAG.huge (kB before, after)
    local tag=$1
    shift
    rm -f "$NAT_TMP/$tag.pid" "$NAT_TMP/$tag.stop"
    env "$@" LD_PRELOAD="$NAT_LIB" LEAKRAY_NATIVE_AT_EXIT=0 \
        LEAKRAY_NATIVE_OUT="$NAT_TMP/$tag.%n.lrn" "$B/bigheap" "$NAT_TMP/$tag.pid" \
        "$NAT_TMP/$tag.stop" >"$NAT_TMP/$tag.out" &
    local bg=$! hp
    for _ in $(seq 400); do [ -s "$NAT_TMP/$tag.pid" ] && break; sleep 0.05; done
    [ -s "$NAT_TMP/$tag.pid" ] || { kill $bg; nat_fail "bigheap never wrote its pid"; }
    hp=$(cat "$NAT_TMP/$tag.pid")
    awk '/^AnonHugePages/ {print $2}' "/proc/$hp/smaps_rollup" >"$NAT_TMP/$tag.huge"
    "$LEAKRAY" native check "$hp" --json --no-timing >"$NAT_TMP/$tag.json" ||
        { touch "$NAT_TMP/$tag.stop"; nat_fail "native check of bigheap ($tag) failed"; }
    awk '/^AnonHugePages/ {print $2}' "/proc/$hp/smaps_rollup" >>"$NAT_TMP/$tag.huge"
    touch "$NAT_TMP/$tag.stop"
    wait $bg || nat_fail "bigheap ($tag) exited $?"
}
huge_run huge
huge_run small LEAKRAY_NATIVE_HUGE_PAGES=0
python3 - "$NAT_TMP" "$thp" "$kver" <<'PY' || nat_fail "huge page checks"
import json, sys
t, thp, kver = sys.argv[1], sys.argv[2], int(sys.argv[3])
fails = 0
for tag in ("huge", "small"):
    d = json.load(open(f"{t}/{tag}.json"))
    ok = d["capture"]["ok"] and d["direct"] == {"blocks": 3, "bytes": 600}
    print(("ok: " if ok else "FAIL: ") + f"bigheap {tag}: 3 direct leaks of 600 bytes: "
          f"{d['direct']}", file=sys.stderr)
    fails += not ok
before, after = (int(x) for x in open(f"{t}/huge.huge").read().split())
if "[never]" in thp or kver < 6001:
    print(f"SKIP: huge pages (THP {thp.strip()!r}, kernel {kver})", file=sys.stderr)
else:
    # MADV_COLLAPSE is best effort: on a busy machine with fragmented memory the kernel
    # collapses part of the range (12-24 MiB of 48 seen); the control below stays on 4 KiB
    ok = after >= 8 * 1024 and after > before
    print(("ok: " if ok else "FAIL: ") + f"a scan put the 48 MiB heap on huge pages: "
          f"AnonHugePages {before} kB before, {after} kB after", file=sys.stderr)
    fails += not ok
    s_before, s_after = (int(x) for x in open(f"{t}/small.huge").read().split())
    if "[madvise]" in thp:
        ok = s_after < 8 * 1024
        print(("ok: " if ok else "FAIL: ") + f"LEAKRAY_NATIVE_HUGE_PAGES=0 left it alone: "
              f"AnonHugePages {s_after} kB after", file=sys.stderr)
        fails += not ok
sys.exit(1 if fails else 0)
PY

python3 - "$NAT_TMP" <<'PY' || nat_fail "checks above"
import json, sys
t = sys.argv[1]
fails = 0
def check(ok, what):
    global fails
    print(("ok: " if ok else "FAIL: ") + what, file=sys.stderr)
    fails += not ok
sigs = set()
for name in ["check1", "check2", "check3", "signal", "exit", "report"]:
    d = json.load(open(f"{t}/{name}.json"))
    check(d["capture"]["ok"], f"{name}: every thread captured ({d['capture']['threads']})")
    check(d["direct"] == {"blocks": 7, "bytes": 693} and d["indirect"]["blocks"] == 0,
          f"{name}: 7 direct leaks of 693 bytes, none indirect: {d['direct']} {d['indirect']}")
    g = d["groups"]
    check(len(g) == 1 and g[0]["frames"] and g[0]["frames"][0]["function"] == "lose",
          f"{name}: one group allocated in lose()")
    sigs.update(x["signature"] for x in g)
    want = "exit" if name in ("exit", "report") else "signal" if name == "signal" else "socket"
    check(d["reason"] == want, f"{name}: reason {d['reason']}")
check(len(sigs) == 1, f"one signature across the six scans: {sigs}")
d = json.load(open(f"{t}/failed.json"))
check(not d["capture"]["ok"] and d["capture"]["failed"] == 1 and "ptrace" in d["capture"]["error"],
      f"a thread held by another tracer: capture {d['capture']}")
d = json.load(open(f"{t}/threads.json"))
kinds = sorted((x["kind"], x["frames"][0]["function"]) for x in d["threads"])
check(kinds == [("running", "spawn_sleeper"), ("unjoined", "spawn_forgotten"),
                ("unjoined", "spawn_forgotten")], f"thread leaks: {kinds}")
# the creation site's backtrace is the program's: no frame of the monitor (main's wrapper)
own = [f["function"] for x in d["threads"] for f in x["frames"]
       if (f.get("module") or "").startswith("libleakray_native")]
check(not own, f"thread leaks: the monitor's frames {own}")
for mode, frames in [("--backtracelibunwind", "lose"), ("--sample1M", None),
                     ("--backtracenone", None), ("--depth1", "lose")]:
    d = json.load(open(f"{t}/list-{mode}.json"))
    check(d["direct"] == {"blocks": 1, "bytes": 32} and
          d["indirect"] == {"blocks": 9, "bytes": 288}, f"list {mode}: totals kept")
    f = d["groups"][0]["frames"]
    got = f[0]["function"] if f else None
    check(got == frames and (mode != "--depth1" or len(f) == 1),
          f"list {mode}: innermost frame {got}, {len(f)} frame(s)")
sys.exit(1 if fails else 0)
PY

# Exec'd children run without the monitor unless --children asks for it. bash on purpose: it
# defines its own getenv/unsetenv (the monitor edits environ itself) and has a SIGCHLD handler
# (which must not run in the tracer and reap its ptrace stops).
"$LEAKRAY" native run --no-timing -o "$NAT_TMP/sh.lrn" -- bash -c 'echo "[$LD_PRELOAD]"; true' \
    >"$NAT_TMP/sh.out" || nat_fail "native run bash failed"
head -1 "$NAT_TMP/sh.out" | grep -qx '\[\]' ||
    nat_fail "child kept LD_PRELOAD: $(head -1 "$NAT_TMP/sh.out")"
"$LEAKRAY" native run --no-timing --children -- bash -c 'echo "[$LD_PRELOAD]"; true' \
    >"$NAT_TMP/sh2.out" || nat_fail "native run --children bash failed"
head -1 "$NAT_TMP/sh2.out" | grep -q 'libleakray_native\.so\]' ||
    nat_fail "--children: child lost LD_PRELOAD: $(head -1 "$NAT_TMP/sh2.out")"
echo "ok: exec'd children traced only with --children" >&2

# --children shows every process's report: forked workers' (they were scanned, and their
# reports thrown away) and those of a program a wrapper script forks (the run ended "wrote no
# scan report", exit 4, naming --children, which was given). --fail-on-leak counts them all.
gcc -O0 -g -fno-omit-frame-pointer -o "$B/forker" "$NAT_PROGS/forker.c" ||
    nat_fail "gcc could not build forker.c"
"$LEAKRAY" native run --no-timing --children -- "$B/forker" >"$NAT_TMP/fork.out" ||
    nat_fail "native run --children forker exited $?"
[ "$(grep -c '^SUMMARY: 1,400 byte(s) leaked in 7 block(s)' "$NAT_TMP/fork.out")" = 3 ] &&
    grep -q '^SUMMARY: 500 byte(s) leaked in 5 block(s)' "$NAT_TMP/fork.out" ||
    nat_fail "--children: the workers' reports: $(grep SUMMARY "$NAT_TMP/fork.out")"
rc=0
"$LEAKRAY" native run --no-timing --children --fail-on-leak -- sh -c "\"$B/lost\"; true" \
    >"$NAT_TMP/wrap.out" 2>"$NAT_TMP/wrap.err" || rc=$?
[ "$rc" = 1 ] && grep -q '^SUMMARY: 220 byte(s) leaked in 4 block(s)' "$NAT_TMP/wrap.out" ||
    nat_fail "--children under a wrapper script: exit $rc, $(cat "$NAT_TMP/wrap.err")"
echo "ok: --children shows the reports of forked and wrapped processes" >&2

# The scan signal goes to the monitor's thread alone: the main thread's sleep is not cut short
# (sent to the process, the signal reached main and its nanosleep returned EINTR).
K2=$NAT_TMP/sleeper-scans
"$LEAKRAY" native run --no-timing --keep "$K2" -o "$NAT_TMP/sleeper.lrn" -- \
    "$B/sleeper" "$NAT_TMP/pid-sleeper" >"$NAT_TMP/sleeper.out" &
RUN=$!
for _ in $(seq 200); do [ -s "$NAT_TMP/pid-sleeper" ] && break; sleep 0.05; done
[ -s "$NAT_TMP/pid-sleeper" ] || { kill $RUN; nat_fail "sleeper never wrote its pid"; }
"$LEAKRAY" native check --signal "$(cat "$NAT_TMP/pid-sleeper")" >/dev/null ||
    nat_fail "check --signal of sleeper failed"
wait $RUN || nat_fail "native run sleeper exited $?"
head -1 "$NAT_TMP/sleeper.out" | grep -qx slept ||
    nat_fail "the scan signal cut main's sleep short: $(head -1 "$NAT_TMP/sleeper.out")"
SIG=$(grep -l '^reason signal' "$K2"/*.lrn | head -1) || nat_fail "sleeper: no signal scan"
"$LEAKRAY" native report "$SIG" --json --no-timing >"$NAT_TMP/sleeper-signal.json" ||
    nat_fail "native report of sleeper's signal scan failed"
python3 - "$NAT_TMP/sleeper-signal.json" <<'PY' || nat_fail "sleeper's signal scan is wrong"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["direct"] == {"blocks": 3, "bytes": 120}, r["direct"]
PY
echo "ok: the scan signal reached the monitor's thread only; main slept on" >&2

# A process without the monitor: no socket to ask, and no signal sent (its default action
# would end the process).
sleep 30 &
OTHER=$!
set +e
"$LEAKRAY" native check "$OTHER" >/dev/null 2>"$NAT_TMP/err"
rc=$?
"$LEAKRAY" native check --signal "$OTHER" >/dev/null 2>"$NAT_TMP/err-signal"
rc2=$?
set -e
kill -0 $OTHER 2>/dev/null || nat_fail "check --signal ended an unmonitored process"
kill $OTHER
[ $rc = 2 ] || nat_fail "check of an unmonitored process exited $rc, not 2"
grep -q "has no native monitor socket" "$NAT_TMP/err" || nat_fail "message: $(cat "$NAT_TMP/err")"
[ $rc2 = 2 ] || nat_fail "check --signal of an unmonitored process exited $rc2, not 2"
grep -q "no signal sent" "$NAT_TMP/err-signal" ||
    nat_fail "message: $(cat "$NAT_TMP/err-signal")"

# A thread's id (what `top -H` lists) names its process; a zombie has nothing to scan.
python3 - "$LEAKRAY" <<'PY' || nat_fail "check of a thread id or of a zombie"
import os, subprocess, sys, threading, time
lr = sys.argv[1]
ev = threading.Event()
t = threading.Thread(target=ev.wait)
t.start()
r = subprocess.run([lr, "native", "check", str(t.native_id)], capture_output=True, text=True)
ev.set()
t.join()
assert r.returncode == 2 and "is a thread of process %d" % os.getpid() in r.stderr, r.stderr
pid = os.fork()
if pid == 0:
    os._exit(0)
time.sleep(0.3)
r = subprocess.run([lr, "native", "check", str(pid)], capture_output=True, text=True)
os.waitpid(pid, 0)
assert r.returncode == 2 and "has ended" in r.stderr, r.stderr
PY
echo "native_live: socket, signal and exit scans agree; output unchanged; thread leaks found"
