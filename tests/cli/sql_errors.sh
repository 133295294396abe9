#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# sql_errors.sh: what `leakray sql` does with bad statements and big answers, and the usage
# errors of instances and path --merged. Bad SQL, an unknown table or column, a result past
# --max-rows: one line on stderr naming the problem, exit 2, nothing partial on stdout; under
# --json the error object. ATTACH (which could write files) is refused; sorts stay in memory,
# under --max-memory (exit 5); --timeout stops a runaway statement (exit 5). --max-rows 0 streams
# every row. Output forms: TSV off a terminal, --csv quoting, --json types.
set -euo pipefail
. "$(dirname "$0")/lib/common.bash"
cli_init sql-errors
cli_fixtures
D=$FIX/test-dump.hprof

run sql "$D" "SELEC * FROM objects"
expect_rc 2
expect_err '^leakray: sql: near "SELEC": syntax error \(at byte 0 of the SQL\)$'
[ "$(wc -l <"$T/err")" = 1 ] || fail "more than one error line"
[ -s "$T/out" ] && fail "output on a syntax error"
run sql "$D" "SELECT nope FROM objects"
expect_rc 2
expect_err '^leakray: sql: no such column: nope \(at byte 7 of the SQL\)$'
run sql "$D" "SELECT * FROM heap"
expect_rc 2
expect_err '^leakray: sql: no such table: heap \(at byte 14 of the SQL\)$'
run sql "$D" "SELECT 1; SELECT nofn(id) FROM objects"
expect_rc 2
expect_err '^leakray: sql: no such function: nofn \(at byte 17 of the SQL\)$'
run sql "$D" "SELECT * FROM objects WHERE"
expect_rc 2
expect_err '^leakray: sql: incomplete input \(at byte 27 of the SQL\)$'
run sql "$D" "SELECT 1; SELECT * FROM objects WHERE nope = 1"
expect_rc 2
expect_err 'no such column: nope \(at byte [0-9]+ of the SQL\)'
run sql "$D" "SELECT * FROM objects" --json --max-rows 1000
expect_rc 2
json_eq "d['error']['code']" usage
json_eq "'more than 1000 rows' in d['error']['message']" true

# A cap that is hit says so; nothing of that statement is printed.
run sql "$D" "SELECT id FROM objects" --max-rows 100
expect_rc 2
expect_err '^leakray: sql: the result has more than 100 rows \(--max-rows; raise it, 0 = no cap, or add LIMIT\)$'
[ -s "$T/out" ] && fail "partial rows printed past --max-rows"
run sql "$D" "SELECT id FROM objects LIMIT 100" --max-rows 100
expect_rc 0
[ "$(wc -l <"$T/out")" = 101 ] || fail "LIMIT 100 under --max-rows 100"
# --max-rows 0 streams: every edge, one line each, as count(*) says.
run sql "$D" "SELECT count(*) FROM edges"
n=$(tail -1 "$T/out")
run sql "$D" "SELECT src, dst, name FROM edges" --max-rows 0
expect_rc 0
[ "$(($(wc -l <"$T/out") - 1))" = "$n" ] || fail "streamed $(wc -l <"$T/out") lines for $n edges"
# Bounded memory: 220 thousand joined rows streamed under --max-rows 0 take no more memory
# than one row (peak RSS within 8 MB), so nothing of the result is kept.
peak() {
    python3 -c 'import resource, subprocess, sys
p = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL)
sys.exit(p.returncode) if p.returncode else print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)' \
        "$LEAKRAY" sql "$D" "$@"
}
one=$(peak "SELECT o.*, e.* FROM objects o JOIN edges e ON e.src = o.id LIMIT 1")
many=$(peak "WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r WHERE i < 4)
             SELECT o.*, e.* FROM r, objects o JOIN edges e ON e.src = o.id" --max-rows 0)
[ "$many" -le $((one + 8192)) ] || fail "streaming kept rows: peak $many KiB against $one KiB"

# A runaway recursive query stops at the cap instead of running forever.
run sql "$D" "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT x FROM c" \
    --max-rows 1000
expect_rc 2
expect_err 'more than 1000 rows'

# The database cannot reach the disk.
run sql "$D" "ATTACH '$T/x.db' AS x"
expect_rc 2
[ -e "$T/x.db" ] && fail "ATTACH created a file"
run sql "$D" "VACUUM INTO '$T/y.db'"
expect_rc 2
[ -e "$T/y.db" ] && fail "VACUUM INTO created a file"
# A sort or a temporary table stays in memory, where --max-memory bounds it (it spilled to
# /var/tmp, unbounded); the temporary storage cannot be moved back to files.
# (under AddressSanitizer the sanitizer owns the allocator and nothing is counted: the
# statement would grow a sort of every pair until the test's timeout)
if [[ $(ldd "$LEAKRAY" 2>/dev/null) != *libasan* ]]; then
    run sql --max-memory 64M --timeout 60 "$D" "SELECT count(*) FROM (SELECT a.id, b.class
        FROM objects a, objects b ORDER BY random())"
    expect_rc 5
    expect_err 'memory limit: phase "sql"'
fi
run sql "$D" "PRAGMA temp_store = FILE"
expect_rc 2
expect_err 'not authorized'
# --timeout stops what no row cap can: an aggregate over a runaway join or recursion
# and what SQLite's interrupt does not reach: one function call over large values
for q in "SELECT count(*) FROM objects a, objects b, objects c" \
         "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT max(x) FROM c" \
         "SELECT instr(hex(zeroblob(5000000)), hex(zeroblob(50000)) || '1')"; do
    t0=$(date +%s)
    run sql --timeout 1 "$D" "$q"
    expect_rc 5
    expect_err 'ran past the time limit \(1 s\)'
    [ $(($(date +%s) - t0)) -lt 30 ] || fail "--timeout 1 took $(($(date +%s) - t0)) s"
done
# ... nor take a pointer from SQL (SQLite built with FTS3's tokenizer function: the two-argument
# form installs any address as a tokenizer, called at the next insert; one argument tells
# where the library is mapped)
run sql "$D" "select fts3_tokenizer('evil', X'4141414141414141');
    create virtual table f using fts3(a, tokenize=evil); insert into f values('x')"
expect_rc 2
expect_err 'not authorized'
run sql "$D" "select fts3_tokenizer('simple')"
expect_rc 2
run sql "$D" "create virtual table g using fts4(a); insert into g values('heap');
    select count(*) from g where g match 'heap'"
expect_rc 0
[ "$(tail -1 "$T/out")" = 1 ] || fail "a full-text table with a built-in tokenizer stopped working"

# A lookup honours the comparison's collation: NOCASE is no exact match, SQLite filters.
run sql "$D" "SELECT count(*) FROM objects WHERE class = 'JAVA.LANG.STRING' COLLATE NOCASE"
[ "$(tail -1 "$T/out")" = 372 ] || fail "class lookup under COLLATE NOCASE"

# --mapping renames before the query runs: the obfuscated class `o` is StackSmasher.
run sql "$D" --mapping "$FIX/test-dump.map" --csv \
    "SELECT instances FROM classes WHERE name = 'DumpedStuff\$StackSmasher'"
[ "$(tail -1 "$T/out")" = 20000 ] || fail "sql --mapping"
run sql "$D" --csv "SELECT count(*) FROM classes WHERE name = 'DumpedStuff\$StackSmasher'"
[ "$(tail -1 "$T/out")" = 0 ] || fail "deobfuscated name without --mapping"
run instances --no-timing "$D" 'DumpedStuff$StackSmasher' --mapping "$FIX/test-dump.map" --json
json_eq "d['count']" 20000

# Output forms.
run sql "$D" "SELECT 1 AS a, 'x,\"y' AS b, NULL AS c, 2.5 AS d" --csv
[ "$(cat "$T/out")" = $'a,b,c,d\n1,"x,""y",,2.5' ] || fail "CSV quoting"
run sql "$D" "SELECT 1 AS a, 'x' AS b, NULL AS c, 2.5 AS d" --json --no-timing
json_eq "d['results'][0]['rows']" '[[1, "x", null, 2.5]]'
json_eq "d['results'][0]['columns']" '["a", "b", "c", "d"]'
run sql "$D" "SELECT 1 AS a, 'x' AS b"
[ "$(cat "$T/out")" = $'a\tb\n1\tx' ] || fail "TSV off a terminal"
if command -v script >/dev/null; then
    # On a terminal: an aligned table (numbers right-aligned) and a row count. The terminal
    # is stderr too, where a slow load (ASan, a busy machine) would draw its progress bar.
    q="SELECT name, instances, shallow FROM classes ORDER BY shallow DESC LIMIT 3"
    script -qec "'$LEAKRAY' sql '$D' --no-timing --no-progress \"$q\"" /dev/null </dev/null |
        tr -d '\r' >"$T/out"
    [ "$(cat "$T/out")" = $'name    instances  shallow\n------  ---------  -------
byte[]       1272  1201675\no           20000   240000\nlong[]        758    73824
(3 rows)' ] || fail "aligned table on a terminal"
fi
echo "SELECT count(*) FROM classes WHERE name = 'java.lang.String'" >"$T/q.sql"
run sql "$D" --sql-file "$T/q.sql"
expect_out '^1$'
set +e
"$LEAKRAY" sql "$D" <"$T/q.sql" >"$T/out" 2>"$T/err"
RC=$?
set -e
expect_rc 0
expect_out '^1$'
run sql "$D" "  -- nothing  "
expect_rc 2
expect_err 'no SQL statement given'

# instances and path --merged usage.
run instances "$D" no.such.Class
expect_rc 2
expect_err 'no class named no.such.Class'
run instances "$D" java.lang.String --where 'count ==== 1'
expect_rc 2
expect_err '^leakray instances: --where: expected a field path or a value'
# a string left open is said so (it was "unexpected 'java.lang.String' at end of rule": the
# class name, which the expression never had)
run instances "$D" java.lang.String --where 'value == "abc'
expect_rc 2
expect_err '^leakray instances: --where: unterminated string'
run analyze "$D" --watch java.lang.String --leaking-if 'value == "abc'
expect_rc 2
expect_err "^leakray analyze: --leaking-if 'value == \"abc': unterminated string"
run path "$D" --merged
expect_rc 2
expect_err '\-\-class and --merged go together'
run path "$D" 0x1 --class java.lang.String --merged
expect_rc 2
run path "$D"
expect_rc 2
expect_err 'missing the object id'
echo "ok"
