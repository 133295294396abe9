#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# info.sh: `leakray info` on real dumps: byte-stable golden text with --no-timing, JSON keys
# and values consistent with histo, compression and inflated size for a gzip fixture.
set -euo pipefail
. "$(dirname "$0")/lib/common.bash"
cli_init info
cli_fixtures
f=$FIX/sun_jdk6_18_x64.hprof

run info --no-timing "$f"
expect_rc 0
# The path is machine-specific: golden the rest.
sed -i "s|$FIX/||" "$T/out"
golden info_sun_jdk6_18_x64.txt

run info --json --no-timing "$f"
expect_rc 0
json_eq 'd["schema_version"]' 2
json_eq 'd["format"]' hprof
json_eq 'd["version"]' "JAVA PROFILE 1.0.1"
json_eq 'd["id_size"]' 8
json_eq 'd["timestamp"]' 2009-11-03T07:42:19.780Z
json_eq 'd["size_model"]' "VisualVM 2.1.5 (HotSpot)"
json_eq 'd["compression"]' plain
json_eq 'd["file_size"] == d["data_size"] == 3020841' true
json_eq 'sum(k["count"] for k in d["objects"]["by_kind"]) == d["objects"]["count"]' true
json_eq 'sum(k["shallow"] for k in d["objects"]["by_kind"]) == d["shallow_total"]' true
json_eq 'sum(k["count"] for k in d["roots"]["by_kind"]) == d["roots"]["count"]' true
json_eq 'all(x["severity"] in ("info", "data-loss", "error") and x["count"] > 0 for x in d["diagnostics"])' true
json_eq '"timing" in d' false
cp "$T/out" "$T/info.json"
run histo --json --no-timing "$f"
total=$(json_get 'd["total"]["shallow"]')
objs=$(json_get 'd["total"]["count"]')
cp "$T/info.json" "$T/out"
json_eq 'd["shallow_total"]' "$total"
json_eq 'd["objects"]["count"]' "$objs"

# gzip input: compression named, inflated size larger than the file.
run info --json --no-timing "$FIX/java_pid1884.0001.hprof.gz"
expect_rc 0
json_eq 'd["compression"]' gzip
json_eq 'd["data_size"] > d["file_size"] > 0' true
run info "$FIX/example-java.hprof.bz2"
expect_rc 0
expect_out '^compression: +bzip2 \('
expect_out '^load time: '

# A file with two heap dumps lists both and marks the one loaded (the last, or --dump N).
run info --json --no-timing "$FIX/oracle_jdk7_21_hprofagent.hprof"
expect_rc 0
json_eq 'd["dump_count"]' 2
json_eq '[x["loaded"] for x in d["dumps"]]' '[false, true]'
json_eq 'd["dumps"][0]["offset"] < d["dumps"][1]["offset"]' true
json_eq '[x["name"] for x in d["diagnostics"] if x["name"] == "extra_dumps"]' '["extra_dumps"]'
n_last=$(json_get 'd["objects"]["count"]')
run info --json --no-timing --dump 0 "$FIX/oracle_jdk7_21_hprofagent.hprof"
expect_rc 0
json_eq '[x["loaded"] for x in d["dumps"]]' '[true, false]'
[ "$(json_get 'd["objects"]["count"]')" != "$n_last" ] || fail "--dump 0 loaded the same dump"
run info --dump 7 "$FIX/oracle_jdk7_21_hprofagent.hprof"
[ "$RC" = 2 ] || [ "$RC" = 3 ] || fail "--dump 7 of 2 exited $RC, expected 2 (not found)"
echo "info: ok"
