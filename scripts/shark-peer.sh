#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# shark-peer.sh: runs Square's Shark (LeakCanary's heap analyzer) as a side-by-side peer for
# parity checks and benchmarks. Never a product dependency: the jars are fetched on first use
# from Maven Central with mvn into ${LEAKRAY_PEER_DIR:-/tmp/leakray-peers}/shark (outside the
# repo, never committed), and scripts/shark/SharkPeer.java, a thin front end to the library
# calls shark-cli makes (shark-cli itself is not published to Maven Central), is compiled there.
# usage: scripts/shark-peer.sh --hprof FILE [--obfuscation-mapping MAP] [--watch CLASS] analyze [--json]
#        scripts/shark-peer.sh --hprof FILE strip-hprof [-o OUT]
#        scripts/shark-peer.sh --fetch        (fetch only; exit 0 when the peer is ready)
#        scripts/shark-peer.sh --check        (exit 0 if already fetched, 1 otherwise; no network)
# env: SHARK_VERSION (default 2.14), LEAKRAY_PEER_DIR, SHARK_JAVA_OPTS (default -Xmx2g).
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
ver=${SHARK_VERSION:-2.14}
dir=${LEAKRAY_PEER_DIR:-/tmp/leakray-peers}/shark/$ver
driver=$src/scripts/shark/SharkPeer.java

ready() {
    [ -s "$dir/cp.txt" ] && [ -f "$dir/classes/SharkPeer.class" ] &&
        [ "$dir/classes/SharkPeer.class" -nt "$driver" ] &&
        while IFS= read -r -d: j; do [ -f "$j" ] || return 1; done < <(cat "$dir/cp.txt"; printf :)
}

fetch() {
    command -v mvn >/dev/null || { echo "shark-peer: mvn not installed" >&2; return 2; }
    command -v javac >/dev/null || { echo "shark-peer: javac not installed" >&2; return 2; }
    mkdir -p "$dir"
    cat > "$dir/pom.xml" <<POM
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>leakray.peer</groupId><artifactId>shark-peer</artifactId><version>1</version>
  <dependencies>
    <dependency>
      <groupId>com.squareup.leakcanary</groupId><artifactId>shark-android</artifactId>
      <version>$ver</version>
    </dependency>
  </dependencies>
</project>
POM
    if ! (cd "$dir" && mvn -q -B org.apache.maven.plugins:maven-dependency-plugin:3.6.1:build-classpath \
            -Dmdep.outputFile="$dir/cp.txt" > "$dir/mvn.log" 2>&1); then
        echo "shark-peer: maven could not fetch shark-android:$ver (see $dir/mvn.log):" >&2
        grep -m3 ERROR "$dir/mvn.log" >&2 || true
        rm -f "$dir/cp.txt"
        return 1
    fi
    rm -rf "$dir/classes"
    mkdir -p "$dir/classes"
    javac -nowarn -d "$dir/classes" -cp "$(cat "$dir/cp.txt")" "$driver" 2> "$dir/javac.log" || {
        cat "$dir/javac.log" >&2; return 1; }
}

case "${1:-}" in
    --check) ready; exit ;;
    --fetch) ready || fetch; exit ;;
    "" | --help | -h) sed -n '3,13p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
esac
ready || fetch
# shellcheck disable=SC2086
exec java ${SHARK_JAVA_OPTS:--Xmx2g} -cp "$dir/classes:$(cat "$dir/cp.txt")" SharkPeer "$@"
