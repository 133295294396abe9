#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# ruby_since.sh: a dump_all(since:) dump (tests/programs/ruby/since.rb) holds the objects made
# after a GC generation, not the classes defined before it. It loads; the new objects of a
# class defined after that generation keep their class (Late, 50); the others are counted as
# unknown_class, whose description speaks of Ruby's case, not only of HPROF's CLASS_DUMP.
set -euo pipefail
. "$(dirname "$0")/ruby_lib.bash"
ruby_start ruby_since since.rb
"$LEAKRAY" info --json --no-timing "$D" >"$W/info.json" || fail "info: exit $?"
check "$W/info.json" '[x["count"] >= e["early"] for x in d["diagnostics"] if x["name"] == "unknown_class"] == [True]' \
    "no unknown_class diagnostic for the instances of a class the dump does not hold"
check "$W/info.json" 'all("Ruby" in x["description"] and "since" in x["description"]
    for x in d["diagnostics"] if x["name"] == "unknown_class")' \
    "the unknown_class description speaks of HPROF alone"
"$LEAKRAY" histo --json --no-timing "$D" >"$W/histo.json" || fail "histo: exit $?"
check "$W/histo.json" '[c["count"] for c in d["classes"] if c["name"] == "Late"] == [e["late"]]' \
    "Late, defined after the generation, does not count its 50 objects"
check "$W/histo.json" '[c["count"] >= e["early"] for c in d["classes"] if c["name"] == "(OBJECT)"] == [True]' \
    "the instances of Early, a class the dump does not hold, are not named by their type"
echo "ruby_since: ok"
