#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# run-tests.sh OUT JOBS BUILD... [-- CTEST_ARGS...]: runs the tests of every BUILD folder in
# one ctest run from OUT (which keeps the times ctest records, to start the longest first next
# time). One run rather than one per build: while a test waits on a JVM's timed stages or a
# server, another build's busy test takes the processor, and no build's last long test runs
# alone. JOBS processors: ctest gets four slots per processor (a test takes a slot per quarter
# of a processor it uses: tests/costs.txt, CMakeLists.txt) and at most as many tests at once.
set -euo pipefail
[ $# -ge 3 ] || { echo "usage: $0 OUT JOBS BUILD... [-- CTEST_ARGS...]" >&2; exit 2; }
out=$1 jobs=$2
shift 2
case $jobs in '' | *[!0-9]* | 0) echo "$0: JOBS must be a number of processors: $jobs" >&2; exit 2 ;; esac
mkdir -p "$out"
{
    echo "# written by scripts/run-tests.sh: the tests of these build folders"
    while [ $# -gt 0 ] && [ "$1" != -- ]; do
        [ -f "$1/CTestTestfile.cmake" ] || { echo "$0: no tests configured in $1" >&2; exit 1; }
        printf 'subdirs("%s")\n' "$(cd "$1" && pwd)"
        shift
    done
} >"$out/CTestTestfile.cmake.new"
mv "$out/CTestTestfile.cmake.new" "$out/CTestTestfile.cmake"
[ "${1:-}" != -- ] || shift
slots=$((4 * jobs))
[ "$slots" -ge 6 ] || slots=6 # the six a test that must run nearly alone takes (CMakeLists.txt)
printf '{"version": {"major": 1, "minor": 0}, "local": [{"cpu": [{"id": "0", "slots": %d}]}]}\n' \
    "$slots" >"$out/resources.json"
cd "$out"
exec ctest -j "$slots" --resource-spec-file resources.json --output-on-failure "$@"
