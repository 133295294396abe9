#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# javac_cache.sh: the tests' javac (tests/lib/bin/javac) gives back kept classes only for the
# same compilation. The classes it gives are the ones javac writes; a changed source, a
# changed class on the class path, a changed class of the working folder's packages (no class
# path given) or other options compile again; a failed compilation and
# LEAKRAY_JAVAC_CACHE=0 keep nothing.
set -euo pipefail
. "$(dirname "$0")/lib/common.bash"
cli_init javac-cache
cli_need_java
shim=$LEAKRAY_SRC/tests/lib/bin/javac
export XDG_CACHE_HOME=$T/cache
entries() { find "$T/cache/leakray/javac" -mindepth 1 -maxdepth 1 ! -name '.*' 2>/dev/null | wc -l; }
mkdir -p "$T/w/lib/q" "$T/w/p" "$T/o"
cd "$T/w" # the outputs go to ../o: not in the class path ".", which is hashed whole
cat >A.java <<'EOF'
public class A { public static void main(String[] a) { System.out.println("one " + p.Q.N + " " + q.L.v()); } }
EOF
cat >p/Q.java <<'EOF'
package p; public class Q { public static final int N = 1; }
EOF
cat >lib/q/L.java <<'EOF'
package q; public class L { public static String v() { return "lib1"; } }
EOF
# compiled as they are (LEAKRAY_JAVAC_CACHE=0): only the checked commands make entries
LEAKRAY_JAVAC_CACHE=0 javac -d lib lib/q/L.java
LEAKRAY_JAVAC_CACHE=0 javac -d . p/Q.java
"$shim" -cp lib:. -d ../o/c1 A.java || fail "the first compilation failed"
[ "$(java -cp ../o/c1:lib:. A)" = "one 1 lib1" ] || fail "c1: $(java -cp ../o/c1:lib:. A)"
[ "$(entries)" = 1 ] || fail "$(entries) entries after one compilation"
"$shim" -cp lib:. -d ../o/c2 A.java || fail "the same compilation failed"
[ "$(entries)" = 1 ] || fail "the same compilation was kept again"
cmp -s ../o/c1/A.class ../o/c2/A.class || fail "the kept class differs from the one javac wrote"
# what the output depends on: each change compiles again
sed -i 's/"one "/"two "/' A.java
"$shim" -cp lib:. -d ../o/c3 A.java
[ "$(java -cp ../o/c3:lib:. A)" = "two 1 lib1" ] || fail "a changed source gave the kept class"
sed -i 's/N = 1/N = 2/' p/Q.java && LEAKRAY_JAVAC_CACHE=0 javac -d . p/Q.java # a constant: inlined into A
"$shim" -cp lib:. -d ../o/c4 A.java
[ "$(java -cp ../o/c4:lib:. A)" = "two 2 lib1" ] || fail "a changed class path gave the kept class"
"$shim" -g -cp lib:. -d ../o/c5 A.java
[ "$(entries)" = 4 ] || fail "$(entries) entries after four different compilations"
# no class path: the working folder is one, for the packages the source names (p. here)
cp -r lib/q .
"$shim" -d ../o/c6 A.java
n=$(entries)
sed -i 's/N = 2/N = 3/' p/Q.java && LEAKRAY_JAVAC_CACHE=0 javac -d . p/Q.java
"$shim" -d ../o/c7 A.java
[ "$(java -cp ../o/c7:. A)" = "two 3 lib1" ] || fail "a changed class of the working folder gave the kept class"
[ "$(entries)" = $((n + 1)) ] || fail "the working folder's package was not part of the key"
# nothing kept from a failure, or when told not to
n=$(entries)
echo 'public class Bad { int x = ; }' >Bad.java
! "$shim" -d ../o/c8 Bad.java 2>"$T/err" || fail "a compilation error exited 0"
grep -q "error" "$T/err" || fail "javac's message was not passed on: $(cat "$T/err")"
sed -i 's/"two "/"three "/' A.java
LEAKRAY_JAVAC_CACHE=0 "$shim" -cp lib:. -d ../o/c9 A.java
[ "$(entries)" = "$n" ] || fail "a failed or uncached compilation was kept"
[ "$(java -cp ../o/c9:lib:. A)" = "three 3 lib1" ] || fail "LEAKRAY_JAVAC_CACHE=0: $(java -cp ../o/c9:lib:. A)"
echo "ok: kept classes only for the same compilation"
