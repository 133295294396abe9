#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# sql_class_id.sh: objects.class_id is the object's class as classes.id names it, so two
# classes of one name (tests/programs/sql/TwoLoaders.java: Loaded through two class loaders,
# 5 and 9 instances, as a redeployed web application's classes) are told apart: joined on
# the name, each object matched both and the counts read 14 and 14. And strings.value of a
# 5,000-character string with a NUL at 100 is all of it (tests/programs/sql/NulString.java).
set -euo pipefail
. "$(dirname "$0")/lib/common.bash"
cli_init sql-class-id
cli_need_java
P=$LEAKRAY_SRC/tests/programs/sql
mkdir -p "$T/main" "$T/loaded"
javac -d "$T/loaded" "$P/loaded/Loaded.java"
javac -d "$T/main" "$P/TwoLoaders.java"
java -cp "$T/main" TwoLoaders "$T/loaded" "$T/two.hprof"
run sql "$T/two.hprof" "SELECT count(*) FROM objects o JOIN classes c ON c.id = o.class_id
    WHERE o.class = 'Loaded' GROUP BY c.loader ORDER BY 1"
expect_rc 0
[ "$(tail -n +2 "$T/out" | tr '\n' ' ')" = "5 9 " ] || fail "per loader: $(cat "$T/out")"
run sql "$T/two.hprof" "SELECT count(*) FROM objects o JOIN classes c ON c.id = o.class_id
    WHERE c.name <> o.class"
[ "$(tail -1 "$T/out")" = 0 ] || fail "class_id names another class than class"
# strings.value is the whole string, NULs and all, past 4 kB too (it was cut at the NUL)
mkdir -p "$T/nul"
javac -d "$T/nul" "$P/NulString.java"
java -cp "$T/nul" NulString "$T/nul.hprof"
run sql "$T/nul.hprof" "SELECT length(CAST(value AS BLOB)) FROM strings WHERE value LIKE 'nnn%'
    ORDER BY 1 DESC LIMIT 1"
[ "$(tail -1 "$T/out")" = 5000 ] || fail "a long string with a NUL: $(cat "$T/out")"
echo "sql_class_id: ok"
