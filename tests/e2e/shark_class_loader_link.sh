#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# shark_class_loader_link.sh: a closed class loader kept only through a Class object a field
# holds (tests/programs/classref/ClassRef.java; an MBean's interface class keeps its web
# application's loader so). The JVM keeps it: the default view traces it through the class's
# <classloader> link. Shark follows no such link and calls it unreachable; so must
# `--size-model shark`, which traced it with "261 bytes retained" beside Shark's 3 leaks.
set -euo pipefail
. "$LEAKRAY_SRC/tests/e2e/special_lib.bash"
fdn_init shark_class_loader_link
fdn_need_java
javac -d "$FDN_TMP/plug" "$LEAKRAY_SRC/tests/programs/classref/plug/Plug.java" ||
    fdn_fail "javac Plug failed"
javac -d "$FDN_TMP/classes" "$LEAKRAY_SRC/tests/programs/classref/ClassRef.java" ||
    fdn_fail "javac ClassRef failed"
D=$FDN_TMP/classref.hprof
java -Xmx256m -cp "$FDN_TMP/classes" ClassRef "$FDN_TMP/plug" "$D" || fdn_fail "ClassRef failed"
SP_JSON=$FDN_TMP/default.json
"$LEAKRAY" analyze "$D" --watch java.net.URLClassLoader --no-suspects --json --no-timing \
    >"$SP_JSON" || fdn_fail "analyze failed"
sp_check "default: the loader is traced through the class's <classloader> link" \
    "len(j['traces']) == 1 and any(e.get('reference', {}).get('name') == '<classloader>' for e in j['traces'][0]['elements']) and j['unreachable_objects'] == []"
SP_JSON=$FDN_TMP/shark.json
"$LEAKRAY" analyze "$D" --size-model shark --watch java.net.URLClassLoader --no-suspects \
    --json --no-timing >"$SP_JSON" || fdn_fail "analyze --size-model shark failed"
sp_check "--size-model shark: unreachable, as in Shark" \
    "j['traces'] == [] and [u['class'] for u in j['unreachable_objects']] == ['java.net.URLClassLoader']"
echo "PASS"
