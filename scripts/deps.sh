#!/usr/bin/env bash
# deps.sh: installs the Debian packages leakray's build, tests and demo need, when missing.
# Idempotent and quiet when everything is present. usage: scripts/deps.sh [build|test|fuzz|bench]
set -euo pipefail
what=${1:-build}
pkgs="cmake make gcc pkg-config zlib1g-dev libbz2-dev libssl-dev libpng-dev libsqlite3-dev libpq-dev"
pkgs="$pkgs libdw-dev"
case "$what" in
  build) ;;
  demo) pkgs="$pkgs openjdk-17-jdk-headless" ;;
  test) pkgs="$pkgs libcmocka-dev openjdk-17-jdk-headless python3 chromium postgresql gdb time ruby"
    pkgs="$pkgs clang-14 libclang-rt-14-dev valgrind libunwind-dev nodejs npm"
    # e2e/native_allocators: programs on jemalloc, tcmalloc and mimalloc (tests only)
    pkgs="$pkgs g++ libjemalloc-dev libgoogle-perftools-dev libmimalloc-dev"
    # unit/api_locale_test: a host program in a decimal-comma locale (localedef's sources)
    pkgs="$pkgs locales" ;;
  fuzz) pkgs="$pkgs clang-14 libclang-rt-14-dev libcmocka-dev" ;;
  bench) pkgs="$pkgs openjdk-17-jdk-headless visualvm time heaptrack valgrind sqlite3 libunwind-dev"
    pkgs="$pkgs chromium nodejs npm" ;;
  *) echo "deps.sh: unknown target $what" >&2; exit 2 ;;
esac
missing=""
for p in $pkgs; do
  # A JDK may come from elsewhere (e.g. a Temurin install): accept any javac on PATH.
  if [ "$p" = openjdk-17-jdk-headless ] && command -v javac >/dev/null 2>&1; then continue; fi
  if [ "$p" = time ] && [ -x /usr/bin/time ]; then continue; fi
  # Node may come from elsewhere too (e.g. a NodeSource nodejs that carries npm itself).
  if [ "$p" = nodejs ] && command -v node >/dev/null 2>&1; then continue; fi
  if [ "$p" = npm ] && command -v npm >/dev/null 2>&1; then continue; fi
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "deps.sh: installing$missing" >&2
SUDO=""
[ "$(id -u)" = 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq >/dev/null
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null
