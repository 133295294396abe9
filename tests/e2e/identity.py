#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# identity.py: runs the commands of the byte-identity manifest and digests what each printed;
# shared by tests/e2e/identity.sh (check) and scripts/identity-goldens.sh (write). Commands
# run in a scratch folder where `fx` links to the fixture folder and `data` to tests/data, so
# the paths the outputs print are the same on every machine. One command's digest is the
# sha256 of its stdout, a separator, its stderr and its exit code: a change in any is caught.
#   identity.py LEAKRAY SRC FIXTURES WORK LIST OUT [EVERY]
# LIST holds "<verb> <args...>" or "<sha256> <verb> <args...>" lines (the digest is dropped,
# no argument holds a space); OUT gets "<sha256> <verb> <args...>" in LIST's order. EVERY
# keeps one line in EVERY (1: all).
import concurrent.futures
import hashlib
import os
import shutil
import subprocess
import sys


def digest(binary, work, args, places):
    p = subprocess.run([binary] + args, cwd=work, stdin=subprocess.DEVNULL,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, check=False)
    out, err = p.stdout, p.stderr
    # A dump's absolute path (analyze's "Heap dump file path") depends on where the checkout
    # and the fixtures are: it is hashed as the link name it was reached through.
    for real, name in places:
        out = out.replace(real, name)
        err = err.replace(real, name)
    h = hashlib.sha256()
    h.update(out)
    h.update(b"\n--stderr--\n")
    h.update(err)
    h.update(b"\n--rc %d\n" % p.returncode)
    return h.hexdigest()


def main():
    binary, src, fixtures, work, lst, out = sys.argv[1:7]
    every = int(sys.argv[7]) if len(sys.argv) > 7 else 1
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    os.symlink(os.path.abspath(fixtures), os.path.join(work, "fx"))
    os.symlink(os.path.join(os.path.abspath(src), "tests", "data"), os.path.join(work, "data"))
    cmds = []
    with open(lst, encoding="utf-8") as f:
        for i, line in enumerate(f):
            words = line.split()
            if len(words[0]) == 64 and all(c in "0123456789abcdef" for c in words[0]):
                words = words[1:]
            if i % every == 0:
                cmds.append(words)
    binary = os.path.abspath(binary)
    places = [(os.path.realpath(os.path.join(work, n)).encode() + b"/", n.encode() + b"/")
              for n in ("fx", "data")]
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as ex:
        sums = list(ex.map(lambda a: digest(binary, work, a, places), cmds))
    with open(out, "w", encoding="utf-8") as f:
        for s, a in zip(sums, cmds):
            f.write(s + " " + " ".join(a) + "\n")


if __name__ == "__main__":
    main()
