#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# analyze_many_loader_groups.sh: more leak groups than are sized exactly (64), each holding
# two closed class loaders through their classes in a static cache of its own (a plugin
# host's caches). A group past the 64th sums its tops one by one, and a leaking loader's
# classes are tops: their object counts were read out of bounds (a crash, exit 139, in
# `analyze`, `--fail-on-leak` and the agent's analysis). Each group is reported and sized.
set -euo pipefail
: "${LEAKRAY:?}" "${LEAKRAY_SRC:?}" "${LEAKRAY_BUILD:?}"
. "$LEAKRAY_SRC/tests/e2e/need_lib.bash"
need_tools javac java python3
work="$LEAKRAY_BUILD/tmp/analyze_many_loader_groups"
rm -rf "$work"
mkdir -p "$work/plugin/p" "$work/host"
fail() { echo "FAIL: $*" >&2; exit 1; }
N=66
printf 'package p;\npublic class A { public static final byte[] B = new byte[1000]; }\n' \
    >"$work/plugin/A.java"
printf 'package p;\npublic class C { public static Object o = new Object(); }\n' \
    >"$work/plugin/C.java"
javac -d "$work/plugin" "$work/plugin/A.java" "$work/plugin/C.java"
{
    echo 'import com.sun.management.HotSpotDiagnosticMXBean;'
    echo 'import java.lang.management.ManagementFactory;'
    echo 'import java.net.URL; import java.net.URLClassLoader; import java.nio.file.Paths;'
    echo 'import java.util.ArrayList; import java.util.List;'
    echo 'public class Host {'
    echo '  public static class PluginLoader extends URLClassLoader {'
    echo '    public boolean closed;'
    echo '    PluginLoader(URL[] u) { super(u, Host.class.getClassLoader()); }'
    echo '    @Override public void close() throws java.io.IOException { closed = true; super.close(); }'
    echo '  }'
    for i in $(seq 1 $N); do echo "  static final List<Object> CACHE$i = new ArrayList<>();"; done
    echo '  static Class<?> load(String dir) throws Exception {'
    echo '    PluginLoader l = new PluginLoader(new URL[] {Paths.get(dir).toUri().toURL()});'
    echo '    Class<?> c = Class.forName("p.A", true, l); Class.forName("p.C", true, l);'
    echo '    l.close(); return c; }'
    echo '  public static void main(String[] a) throws Exception {'
    for i in $(seq 1 $N); do echo "    CACHE$i.add(load(a[0])); CACHE$i.add(load(a[0]));"; done
    echo '    for (int i = 0; i < 3; i++) System.gc();'
    echo '    ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class).dumpHeap(a[1], true);'
    echo '  } }'
} >"$work/host/Host.java"
javac -d "$work/host" "$work/host/Host.java"
java -cp "$work/host" Host "$work/plugin/" "$work/h.hprof" >/dev/null

rc=0
"$LEAKRAY" analyze "$work/h.hprof" --watch 'Host$PluginLoader' --leaking-if closed --json \
    --no-timing --no-suspects >"$work/a.json" || rc=$?
[ "$rc" -eq 0 ] || fail "analyze: exit $rc"
python3 - "$work/a.json" "$N" <<'PY' || fail "groups"
import json, sys
d, n = json.load(open(sys.argv[1])), int(sys.argv[2])
g = d['application_leaks']
assert len(g) == n, ('groups', len(g))
assert d['leaking_objects'] == 2 * n, ('leaking objects', d['leaking_objects'])
sizes = [x['retained_bytes'] for x in g]
# every group holds two loaders and their 1000-byte statics; those past the 64th are summed
# top by top, a lower bound of the exact figure, never 0 nor above it
assert min(sizes) >= 2000 and max(sizes) <= 2 * min(sizes), sizes
PY
echo "ok: $N groups of two leaked loaders each, all sized"
rc=0
"$LEAKRAY" analyze "$work/h.hprof" --watch 'Host$PluginLoader' --leaking-if closed \
    --fail-on-leak --no-timing >/dev/null || rc=$?
[ "$rc" -eq 1 ] || fail "--fail-on-leak: exit $rc"
echo "ok: --fail-on-leak exits 1"
