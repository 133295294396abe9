#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# own-memory.py: runs a command and reports the peak of its own memory: RssAnon + RssShmem
# from /proc/PID/status, sampled every 2 ms. Mapped file pages (a dump being read) are page
# cache, not counted; max RSS from `time -v` counts them. A sampled peak may miss a spike
# shorter than the interval, so it is a lower bound: tests compare it against bounds far
# from the values they want to rule out.
# usage: scripts/own-memory.py REPORT-FILE COMMAND [ARGS...]
#   writes "PEAK_KB" to REPORT-FILE, exits with the command's exit code (128+N on signal N);
#   the command's stdin, stdout and stderr are this script's.
import subprocess
import sys
import time


def own_kb(pid):
    anon = shmem = 0
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("RssAnon:"):
                    anon = int(line.split()[1])
                elif line.startswith("RssShmem:"):
                    shmem = int(line.split()[1])
    except OSError:
        return 0
    return anon + shmem


def main():
    if len(sys.argv) < 3:
        sys.stderr.write("usage: own-memory.py REPORT-FILE COMMAND [ARGS...]\n")
        return 2
    p = subprocess.Popen(sys.argv[2:])
    peak = 0
    while p.poll() is None:
        peak = max(peak, own_kb(p.pid))
        time.sleep(0.002)
    with open(sys.argv[1], "w") as f:
        f.write(f"{peak}\n")
    return p.returncode if p.returncode >= 0 else 128 - p.returncode


if __name__ == "__main__":
    sys.exit(main())
