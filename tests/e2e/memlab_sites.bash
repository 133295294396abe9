# SPDX-License-Identifier: Apache-2.0
# memlab_sites.bash: `leakray leaks` beside memlab's --trace-all-objects rows. memlab also
# reports V8's literal boilerplates (what an AllocationSite alone keeps), which the shipped
# rules leave out; leaks_sites runs `leaks` on a trio twice, with them kept (a first-match
# `dir` line that is not ignored: OUT_KEPT, what memlab's rows are compared with) and by
# default (OUT_DEFAULT), and succeeds when the default left out some objects, all of the
# boilerplates' classes (Object, Array), and nothing else.
# usage: leaks_sites BASELINE TARGET FINAL OUT_KEPT OUT_DEFAULT   (LEAKRAY, LEAKRAY_SRC set)
leaks_sites() {
    local rules="$4.rules"
    printf 'dir "literal sites" type=* name="system / AllocationSite"\n%s\n' \
        'cluster "literal sites" by=internal' >"$rules"
    "$LEAKRAY" leaks --baseline "$1" --target "$2" --final "$3" --json --no-timing --top 0 \
        --rules "$rules" >"$4" &&
        "$LEAKRAY" leaks --baseline "$1" --target "$2" --final "$3" --json --no-timing \
            --top 0 >"$5" || return 1
    python3 - "$4" "$5" <<'PY'
import json, os, sys
sys.path.insert(0, os.path.join(os.environ['LEAKRAY_SRC'], 'tests', 'e2e'))
from memlab_leaks import by_name
kept, dflt = (by_name(json.load(open(f))) for f in sys.argv[1:3])
gone = {k: v for k, v in kept.items() if dflt.get(k) != v}
assert set(gone) <= {'Object', 'Array'} and gone, gone
PY
}
