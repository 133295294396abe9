#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# install.sh: the install step (what `make install PREFIX=...` runs: cmake --install of the
# build folder) into a scratch root. Checks that the CLI, both libraries, the public header
# and the pkg-config file land, then compiles a small C program against the installed copy
# through pkg-config -- once against the shared library, once statically with
# `pkg-config --static` -- and runs both on a real dump (a hand-made HPROF from the repo) and
# on garbage, so a missing symbol export, header or link flag fails here, not at a user's.
# The install goes to another prefix than the build folder was configured with (cmake
# --install --prefix), so the pkg-config file must find its folders from where it lies.
set -euo pipefail
. "$(dirname "$0")/lib/common.bash"
cli_init install
command -v pkg-config >/dev/null || skip "pkg-config not installed"
command -v cc >/dev/null || skip "no C compiler"
command -v cmake >/dev/null || skip "cmake not installed"

root=$T/root
cmake --install "$LEAKRAY_BUILD" --prefix "$root" >"$T/install.log" 2>&1 ||
    { cat "$T/install.log" >&2; fail "cmake --install failed"; }

pc=$(find "$root" -name leakray.pc | head -1)
[ -n "$pc" ] || fail "no leakray.pc installed"
cli=$(find "$root" -path '*/bin/leakray' -type f | head -1)
[ -n "$cli" ] && [ -x "$cli" ] || fail "no CLI installed under bin/"
hdr=$(find "$root" -path '*/include/leakray/leakray.h' | head -1)
[ -n "$hdr" ] || fail "no public header include/leakray/leakray.h"
libdir=$(dirname "$(dirname "$pc")")
[ -f "$libdir/libleakray.a" ] || fail "no static library in $libdir"
ls "$libdir"/libleakray.so.* >/dev/null 2>&1 || fail "no versioned shared library in $libdir"
[ -L "$libdir/libleakray.so" ] || fail "no libleakray.so development link in $libdir"
[ "$(find "$root" -path '*/leakray/libleakray_native.so' | wc -l)" = 1 ] ||
    fail "no native monitor library installed under LIBDIR/leakray/"
rules=$(find "$root" -path '*/share/leakray/rules/*.rules' | wc -l)
[ "$rules" -ge 1 ] || fail "no rules files installed"

export PKG_CONFIG_PATH=$(dirname "$pc") PKG_CONFIG_LIBDIR=
# installed under another prefix than the build folder's: the file finds its own folders
pkg-config --cflags leakray | grep -q -- "-I$root/" ||
    fail "pkg-config does not point into the prefix installed to: $(pkg-config --cflags leakray)"
pkg-config --exists leakray || fail "pkg-config does not find leakray"
[ "$(pkg-config --modversion leakray)" = "$("$LEAKRAY" --version | awk '{print $2}')" ] ||
    fail "pkg-config version $(pkg-config --modversion leakray) differs from the CLI's"

cat >"$T/probe.c" <<'C'
#include <leakray/leakray.h>
#include <stdio.h>
#include <string.h>

/* Opens each argument; prints "FILE: FORMAT" or "FILE: exit N offset O". */
int main(int argc, char **argv)
{
    if (strcmp(LR_VERSION_STRING, "") == 0)
        return 9;
    for (int i = 1; i < argc; i++) {
        lr_heap *h = NULL;
        lr_error err;
        memset(&err, 0, sizeof err);
        lr_status st = lr_open(argv[i], NULL, &h, &err);
        if (st == LR_OK) {
            printf("%s: %s %s\n", argv[i], lr_heap_format(h),
                   lr_object_count(h) > 0 ? "graph" : "nograph");
            lr_close(h);
        } else {
            printf("%s: exit %d offset %llu (%s)\n", argv[i], lr_exit_code(st),
                   (unsigned long long)err.offset, lr_strerror(st));
        }
    }
    return 0;
}
C
# The build folder may be an ASan/UBSan build: the probe then needs the same runtime.
extra=()
if grep -q '^LEAKRAY_SANITIZE:BOOL=ON' "$LEAKRAY_BUILD/CMakeCache.txt" 2>/dev/null; then
    extra=(-fsanitize=address,undefined)
fi
# shellcheck disable=SC2046
cc -std=c11 -Wall -Werror "${extra[@]}" -o "$T/probe-shared" "$T/probe.c" \
    $(pkg-config --cflags --libs leakray) -Wl,-rpath,"$libdir" 2>"$T/cc.err" ||
    { cat "$T/cc.err" >&2; fail "probe does not build against the shared library"; }
ldd "$T/probe-shared" >"$T/ldd-shared" # not piped into grep -q: SIGPIPE under pipefail
grep -q "$libdir/libleakray.so" "$T/ldd-shared" ||
    fail "probe is not linked with the installed shared library"
# Static: the archive itself plus Libs.private must resolve everything.
# shellcheck disable=SC2046
cc -std=c11 -Wall -Werror "${extra[@]}" -o "$T/probe-static" "$T/probe.c" \
    $(pkg-config --cflags leakray) "$libdir/libleakray.a" \
    $(pkg-config --static --libs leakray | sed 's/-lleakray\b//') 2>"$T/cc.err" ||
    { cat "$T/cc.err" >&2; fail "probe does not link statically with pkg-config --static"; }
ldd "$T/probe-static" >"$T/ldd-static"
! grep -q libleakray "$T/ldd-static" || fail "static probe still needs libleakray.so"
# The archive exports the lr_ functions alone, as the shared library: a program with
# functions of its own named like the library's internal ones links statically too.
nm -g --defined-only "$libdir/libleakray.a" 2>/dev/null | awk 'NF == 3 { print $3 }' |
    grep -v '^lr_' >"$T/archive-globals" || true
[ ! -s "$T/archive-globals" ] ||
    fail "the archive exports $(wc -l <"$T/archive-globals") names besides lr_: $(head -3 "$T/archive-globals" | tr '\n' ' ')"
cat >"$T/clash.c" <<'C'
#include <leakray/leakray.h>
#include <stdio.h>
int hmap_add(void) { return 1; }        /* names the library uses inside */
int progress_init(void) { return 2; }
int main(void) { printf("%d %s\n", hmap_add() + progress_init(), lr_version()); return 0; }
C
# shellcheck disable=SC2046
cc -std=c11 -Wall -Werror "${extra[@]}" -o "$T/clash" "$T/clash.c" \
    $(pkg-config --cflags leakray) "$libdir/libleakray.a" \
    $(pkg-config --static --libs leakray | sed 's/-lleakray\b//') 2>"$T/cc.err" ||
    { cat "$T/cc.err" >&2; fail "a program with its own hmap_add does not link statically"; }
"$T/clash" | grep -q '^3 ' || fail "the program's own functions are not the ones called"

hm=$LEAKRAY_SRC/tests/corrupt/handmade
printf 'not a heap dump\n' >"$T/garbage.bin"
for p in "$T/probe-shared" "$T/probe-static"; do
    (cd "$hm" && "$p" valid-minimal.hprof record-past-end.hprof "$T/garbage.bin") >"$T/out" 2>"$T/err" ||
        fail "$(basename "$p") exited $?"
    grep -qx 'valid-minimal.hprof: hprof graph' "$T/out" || fail "$(basename "$p"): valid dump not loaded"
    grep -qE '^record-past-end.hprof: exit 3 offset [0-9]+ ' "$T/out" ||
        fail "$(basename "$p"): truncated dump not exit 3 with an offset"
    grep -qE 'garbage.bin: exit 3 offset 0 ' "$T/out" || fail "$(basename "$p"): garbage not refused"
done

# The installed CLI runs on its own.
(cd "$hm" && "$cli" histo --json --no-timing valid-minimal.hprof) >"$T/out" 2>"$T/err" ||
    fail "installed CLI failed"
json_eq '[c["count"] for c in d["classes"] if c["name"] == "Foo"]' '[3]'
# The installed CLI reads the installed rules, never the source tree it was built from: plant
# a syntax error in the staged copy of jdk.rules (loaded for every HPROF dump) and expect the
# error to name that copy.
jdk=$(find "$root" -path '*/share/leakray/rules/jdk.rules' | head -1)
[ -n "$jdk" ] || fail "jdk.rules not installed"
printf 'this is not a rule\n' >>"$jdk"
rc=0
(cd "$hm" && env -u LEAKRAY_RULES_DIR "$cli" analyze --no-timing valid-minimal.hprof) \
    >"$T/out" 2>"$T/err" || rc=$?
[ "$rc" = 3 ] || fail "installed CLI with a broken installed jdk.rules exited $rc, not 3"
grep -qF "$jdk:" "$T/err" ||
    fail "installed CLI did not read its installed rules: $(head -c 300 "$T/err")"
echo "install: ok (CLI, static + shared library, header, pkg-config, $rules rules files)"
