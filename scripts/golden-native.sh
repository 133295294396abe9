#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# golden-native.sh: regenerates tests/e2e/expected/native/peers.txt, the leaks leakray's
# native monitor, LeakSanitizer (clang-14 -fsanitize=leak) and valgrind --leak-check=full
# find in each program of tests/programs/native at exit. Needs a built CLI, clang-14 with
# libclang-rt-14-dev and valgrind (scripts/deps.sh test installs them).
# usage: scripts/golden-native.sh [BUILD_DIR]   (default build)
set -euo pipefail
cd "$(dirname "$0")/.."
LEAKRAY_SRC=$PWD
LEAKRAY_BUILD=$PWD/${1:-build}
LEAKRAY=$LEAKRAY_BUILD/leakray
export LEAKRAY LEAKRAY_SRC LEAKRAY_BUILD
. tests/e2e/native_lib.bash
nat_init golden-native
nat_build "$NAT_TMP/gcc" gcc
nat_build "$NAT_TMP/lsan" clang-14 -fsanitize=leak -DNO_DEEPBIND
out=tests/e2e/expected/native/peers.txt
{
    echo "# program | leakray: direct blocks bytes, indirect blocks bytes | LeakSanitizer: same"
    echo "# | valgrind: definitely lost blocks bytes, indirectly lost blocks bytes, possibly"
    echo "# lost blocks bytes. Written by scripts/golden-native.sh; peers' versions:"
    echo "# $(clang-14 --version | head -1); $(valgrind --version)"
    for p in $NAT_NAMES; do
        echo "$p | $(nat_leakray "$NAT_TMP/gcc" "$p") | $(nat_lsan "$NAT_TMP/lsan" "$p")" \
            "| $(nat_valgrind "$NAT_TMP/gcc" "$p")"
    done
} >"$out.tmp"
mv "$out.tmp" "$out"
cat "$out"
