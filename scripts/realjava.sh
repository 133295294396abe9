#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# realjava.sh: the classic leaks of real Java libraries, dumped and compared with the peers.
# Never a test dependency: the jars (Jetty 11, Netty 4.1, Guava 33, Caffeine 3, H2 2.3,
# Jackson 2.18) are fetched with mvn into ${LEAKRAY_REALJAVA_DIR:-/tmp/leakray-realjava}
# (outside the repo, never committed), as scripts/shark-peer.sh fetches Shark. Runs the four
# programs of scripts/realjava/ (live dump, the JVM's class histogram, non-live dump each),
# then for every live dump: `leakray analyze` (suspects) and `analyze --watch CLASS`, the
# same watch in Shark 2.14 (scripts/shark-peer.sh; signatures and, with --size-model shark,
# every size line), per-instance bytes against `jcmd GC.class_histogram`, and VisualVM's top
# 100 retained sizes when its peer is there (VISUALVM_PEER, default ../shared/peers/visualvm).
# Reports land in DIR/out; one summary line per check on stdout. Findings: docs/design.md.
# usage: scripts/realjava.sh [LEAKRAY]       (default: build/leakray)
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
lr=${1:-$src/build/leakray}
dir=${LEAKRAY_REALJAVA_DIR:-/tmp/leakray-realjava}
vvm=${VISUALVM_PEER:-$src/../shared/peers/visualvm/run.sh}
[ -x "$lr" ] || { echo "realjava: no leakray at $lr" >&2; exit 2; }
mkdir -p "$dir/lib" "$dir/classes" "$dir/webapp" "$dir/dumps" "$dir/out"

if [ ! -s "$dir/lib/cp.txt" ]; then
    command -v mvn >/dev/null || { echo "realjava: mvn not installed" >&2; exit 2; }
    dep() { printf '<dependency><groupId>%s</groupId><artifactId>%s</artifactId>' "$1" "$2"
            printf '<version>%s</version></dependency>\n' "$3"; }
    {
        echo '<project xmlns="http://maven.apache.org/POM/4.0.0"><modelVersion>4.0.0</modelVersion>'
        echo '<groupId>leakray.realjava</groupId><artifactId>realjava</artifactId><version>1</version>'
        echo '<dependencies>'
        dep org.eclipse.jetty jetty-server 11.0.24
        dep io.netty netty-buffer 4.1.115.Final
        dep com.google.guava guava 33.3.1-jre
        dep com.github.ben-manes.caffeine caffeine 3.1.8
        dep com.h2database h2 2.3.232
        dep com.fasterxml.jackson.core jackson-databind 2.18.1
        echo '</dependencies></project>'
    } > "$dir/lib/pom.xml"
    (cd "$dir/lib" && mvn -q -B org.apache.maven.plugins:maven-dependency-plugin:3.6.1:build-classpath \
        -Dmdep.outputFile="$dir/lib/cp.txt" > "$dir/lib/mvn.log" 2>&1) ||
        { echo "realjava: maven failed (see $dir/lib/mvn.log)" >&2; rm -f "$dir/lib/cp.txt"; exit 1; }
fi
cp=$(cat "$dir/lib/cp.txt")
javac -nowarn -d "$dir/webapp" "$src/tests/programs/redeploy/webapp/App.java"
javac -nowarn -d "$dir/classes" -cp "$cp" "$src"/scripts/realjava/*.java 2>/dev/null
d=$dir/dumps
rm -f "$d"/*.hprof "$d"/*.jcmd.txt
run() { java -cp "$dir/classes:$cp" "leakray.realjava.$1" "${@:2}" > /dev/null 2>&1; }
run JettyRedeploy "$dir/webapp" "$d/redeploy.hprof" "$d/redeploy-all.hprof"
run DirectBuffers "$d/directbuffers.hprof" "$d/directbuffers-all.hprof"
run Caches "$d/caches.hprof" "$d/caches-all.hprof"
run BigLegit "$d/biglegit.hprof" "$d/biglegit-all.hprof"

declare -A watch=([redeploy]=java.net.URLClassLoader [directbuffers]='leakray.realjava.DirectBuffers$Connection'
                  [caches]='leakray.realjava.Caches$Session' [biglegit]='leakray.realjava.BigLegit$Token')
shark=0
"$src/scripts/shark-peer.sh" --fetch > /dev/null 2>&1 && shark=1
sizes() { grep -E 'Signature|bytes retained by|Retaining|APPLICATION LEAKS|UNREACHABLE OBJECTS' |
          sed 's/\xe2\x80\x8b//g'; }
for name in redeploy directbuffers caches biglegit; do
    f=$d/$name.hprof o=$dir/out/$name w=${watch[$name]}
    "$lr" analyze "$f" --no-timing > "$o.analyze.txt"
    "$lr" analyze "$f" --no-timing --watch "$w" > "$o.watch.txt"
    "$lr" histo "$f" --no-timing --csv > "$o.histo.csv"
    echo "$name: suspects $(grep -c '^Suspect [0-9]*:' "$o.analyze.txt"), application leaks" \
         "$(sed -n 's/^\([0-9]*\) APPLICATION LEAKS$/\1/p' "$o.watch.txt") watching $w"
    if [ $shark = 1 ]; then
        "$src/scripts/shark-peer.sh" --hprof "$f" --watch "$w" analyze 2>/dev/null | sizes > "$o.shark.txt"
        "$lr" analyze "$f" --no-timing --no-suspects --size-model shark --watch "$w" | sizes > "$o.lrshark.txt"
        if cmp -s "$o.shark.txt" "$o.lrshark.txt"; then echo "  shark 2.14: signatures and sizes equal"
        else echo "  shark 2.14: differs (diff $o.lrshark.txt $o.shark.txt)"; fi
    fi
    python3 - "$f.jcmd.txt" "$o.histo.csv" <<'PY'
import csv, re, sys
prim = dict(B="byte", C="char", D="double", F="float", I="int", J="long", S="short", Z="boolean")
def name(n):
    k = len(n) - len(n.lstrip("["))
    n = n[k:]
    return (prim.get(n, n[1:-1]) if k else n) + "[]" * k
jvm, lr = {}, {}
for line in open(sys.argv[1]):
    m = re.match(r"\s*\d+:\s+(\d+)\s+(\d+)\s+(\S+)", line)
    if m:
        jvm.setdefault(name(m.group(3)), []).append((int(m.group(1)), int(m.group(2))))
for r in csv.DictReader(open(sys.argv[2])):
    lr.setdefault(r["class"], []).append((int(r["count"]), int(r["shallow"])))
same, diff = 0, []
for c in sorted(set(jvm) & set(lr)):
    if c.endswith("[]") or c == "java.lang.Class" or len(jvm[c]) != 1 or len(lr[c]) != 1:
        continue
    (a, ab), (b, bb) = jvm[c][0], lr[c][0]
    if ab * b == bb * a:
        same += 1
    else:
        diff.append(f"{c.rsplit('.', 1)[-1]} {ab // a}/{bb // b}")
print(f"  jcmd: {same} classes of equal bytes per instance; differ (JVM/leakray): "
      + (", ".join(diff) or "none"))
PY
    if [ -f "$vvm" ]; then
        rm -rf "$f.hwcache"
        bash "$vvm" "$f" top 100 > "$o.vvm.txt" 2>/dev/null || true
        "$lr" top "$f" --json --no-timing --top 300 > "$o.top.json"
        python3 - "$o.vvm.txt" "$o.top.json" <<'PY'
import json, sys
vvm = {}
for line in open(sys.argv[1]):
    p = line.rstrip("\n").split("\t")
    if len(p) == 4 and p[0].startswith("0x"):
        vvm[p[0]] = (int(p[2]), int(p[3]))
top = {o["id"]: (o["retained"], o["shallow"]) for o in json.load(open(sys.argv[2]))["objects"]}
eq = sum(1 for k, v in vvm.items() if top.get(k) == v)
print(f"  visualvm top {len(vvm)}: {eq} equal (id, retained, shallow)")
PY
    fi
done
