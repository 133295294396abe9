#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# rust-peers.sh: the two HPROF analysers published on crates.io that bench/hprof_peers.sh and
# bench/sql.sh run beside leakray. Never a product dependency: each is built on first use with
# `cargo install --locked` into ${LEAKRAY_PEER_DIR:-/tmp/leakray-peers}/NAME/VERSION (outside
# the repo, never committed), as scripts/shark-peer.sh fetches Shark.
#   hprof-slurp 0.10.0     (HPROF_SLURP_VERSION)
#   hprof-analyzer 0.3.2   (HPROF_ANALYZER_VERSION)
# hprof-slurp's release profile asks for fat LTO and one codegen unit, a long build on a
# 2-core machine; it is built with LTO off and 16 units (the measured build), which changes
# nothing it computes.
# usage: scripts/rust-peers.sh NAME           prints the binary's path, building it if needed
#        scripts/rust-peers.sh --check NAME   exit 0 if built already (no network), 1 if not
# Exit 2 when cargo is missing or the build fails (its log is in the peer's folder).
set -euo pipefail
check=0
if [ "${1:-}" = --check ]; then
    check=1
    shift
fi
name=${1:-}
case $name in
hprof-slurp) ver=${HPROF_SLURP_VERSION:-0.10.0} ;;
hprof-analyzer) ver=${HPROF_ANALYZER_VERSION:-0.3.2} ;;
*)
    echo "usage: scripts/rust-peers.sh [--check] hprof-slurp|hprof-analyzer" >&2
    exit 2
    ;;
esac
root=${LEAKRAY_PEER_DIR:-/tmp/leakray-peers}/$name/$ver
bin=$root/bin/$name
if [ -x "$bin" ]; then
    printf '%s\n' "$bin"
    exit 0
fi
[ "$check" = 1 ] && exit 1
command -v cargo >/dev/null || { echo "rust-peers: cargo not installed ($name)" >&2; exit 2; }
mkdir -p "$root"
echo "rust-peers: building $name $ver from crates.io into $root (a few minutes, once) ..." >&2
if ! CARGO_PROFILE_RELEASE_LTO=false CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16 \
    cargo install --locked --quiet --version "$ver" --root "$root" "$name" \
    >"$root/build.log" 2>&1; then
    echo "rust-peers: building $name $ver failed; see $root/build.log" >&2
    tail -5 "$root/build.log" >&2
    exit 2
fi
[ -x "$bin" ] || { echo "rust-peers: $bin missing after the build" >&2; exit 2; }
printf '%s\n' "$bin"
