#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# graph_cycles.sh: `leakray cycles` on generic graphs (JSON lines). A ring of 65 objects is
# found with --max-length 100: the search was cut at 64 members whatever was asked, and read
# "0 found". A Lua-style Player.onDeath -> closure.self cycle written as `property` edges is
# found as it is with `field` edges (the V8 rules for those kinds left it out), and the same
# cycle once. A --max-length past the limit is refused, not taken modulo 2^32. (And a size
# past 4 GiB, clamped, is said on stderr by top and histo.)
set -euo pipefail
. "$(dirname "$0")/lib/common.bash"
cli_init graph-cycles
python3 - "$T/ring.jsonl" <<'PY'
import sys
with open(sys.argv[1], "w") as f:
    f.write('{"leakray_graph": 1}\n{"class": 1, "name": "Node"}\n')
    for i in range(1, 66):
        f.write('{"node": %d, "class": 1, "size": 16}\n' % i)
        f.write('{"edge": [%d, %d], "name": "next"}\n' % (i, i % 65 + 1))
    f.write('{"root": 1, "kind": "global"}\n')
PY
run cycles "$T/ring.jsonl" --class Node --max-length 100 --json --no-timing
expect_rc 0
json_eq '[(c["length"], c["count"]) for c in d["cycles"]]' '[[65, 1]]'
run cycles "$T/ring.jsonl" --class Node --json --no-timing
json_eq 'len(d["cycles"])' 0
for kind in property internal field; do
    cat >"$T/$kind.jsonl" <<EOT
{"leakray_graph": 1, "format": "lua-scan"}
{"class": 1, "name": "Player"}
{"class": 2, "name": "function"}
{"class": 3, "name": "Game"}
{"node": 1, "class": 3, "size": 10}
{"node": 2, "class": 1, "size": 100}
{"node": 3, "class": 2, "kind": "closure", "size": 40}
{"edge": [1, 2], "name": "player", "kind": "$kind"}
{"edge": [2, 3], "name": "onDeath", "kind": "$kind"}
{"edge": [3, 2], "name": "self", "kind": "$kind"}
{"edge": [3, 1], "name": "env", "kind": "$kind", "strength": "weak"}
{"root": 1, "kind": "global"}
EOT
    run cycles "$T/$kind.jsonl" --class Player --json --no-timing
    expect_rc 0
    json_eq '[(c["signature"], c["count"]) for c in d["cycles"]]' \
        '[["Player.onDeath -> function.self", 1]]'
done
run cycles "$T/ring.jsonl" --class Node --max-length 4294967297
expect_rc 2
expect_err 'max-length 4294967297: at most'
# a cycle no root reaches (ARC: never freed) keeps what it alone reaches: it read 0 bytes
cat >"$T/arc.jsonl" <<'EOT'
{"leakray_graph": 1, "format": "ios-scan", "hex_ids": true}
{"class": 1, "name": "CheckoutViewController"}
{"class": 2, "name": "__NSMallocBlock__"}
{"class": 3, "name": "UIWindow"}
{"class": 4, "name": "UIImage"}
{"node": "0x1000", "class": 3, "size": 64}
{"node": "0x2000", "class": 1, "size": 512}
{"node": "0x3000", "class": 2, "size": 48}
{"node": "0x4000", "class": 4, "size": 1000000}
{"edge": ["0x2000", "0x3000"], "name": "completion"}
{"edge": ["0x3000", "0x2000"], "name": "self"}
{"edge": ["0x2000", "0x4000"], "name": "hero"}
{"root": "0x1000", "kind": "global"}
EOT
run cycles "$T/arc.jsonl" --class CheckoutViewController --json --no-timing
expect_rc 0
json_eq '[(c["length"], c["retained"]) for c in d["cycles"]]' '[[2, 1000560]]'
# a size past 4 GiB is clamped; top and histo say so on stderr (only info did)
printf '{"leakray_graph": 1}\n{"node": 1, "size": 6000000000, "kind": "primitive array"}\n{"root": 1, "kind": "global"}\n' \
    >"$T/huge.jsonl"
for verb in top histo; do
    run "$verb" "$T/huge.jsonl" --no-timing
    expect_rc 0
    expect_err 'warning: 1 objects of 4 GiB or more .an object.s size is 32-bit. counted as 4,294,967,295 bytes'
done
# The short cycles first: 36 Stage nodes in 12 stages of 3, each linked to all 3 of the
# next, make 531,441 cycles of 12; a Pair's 2-cycle lies after them. Asked for cycles up to
# 100 long, one pass spent its cap on the stages and lost the pair (found at the default
# 10); the pass up to 10 runs first now. --max-cycles sets the cap, and the text says which
# cap stopped it (the cap holds per band of lengths: the pair, then 20,000 stages).
python3 - "$T/stages.jsonl" <<'PY'
import sys
S, W = 12, 3
nid = lambda s, w: 10 + s * W + w
out = ['{"leakray_graph": 1}', '{"class": 1, "name": "Root"}', '{"class": 2, "name": "Stage"}',
       '{"class": 3, "name": "Pair"}', '{"node": 1, "class": 1, "size": 16}']
out += ['{"node": %d, "class": 2, "size": 16}' % nid(s, w) for s in range(S) for w in range(W)]
out += ['{"edge": [%d, %d], "name": "next"}' % (nid(s, w), nid((s + 1) % S, v))
        for s in range(S) for w in range(W) for v in range(W)]
out += ['{"node": 1000, "class": 3, "size": 16}', '{"node": 1001, "class": 3, "size": 16}',
        '{"edge": [1000, 1001], "name": "other"}', '{"edge": [1001, 1000], "name": "other"}',
        '{"edge": [1, 10], "name": "stages"}', '{"edge": [1, 1000], "name": "pair"}',
        '{"root": 1, "kind": "global"}']
open(sys.argv[1], "w").write("\n".join(out) + "\n")
PY
run cycles "$T/stages.jsonl" --class Root --max-length 100 --max-cycles 20000 --top 0 --json \
    --no-timing
expect_rc 0
json_eq '[d["cycles_found"], d["truncated"]]' '[20001, true]'
json_eq '[c["signature"] for c in d["cycles"] if "Pair" in c["signature"]]' '["Pair.other -> Pair.other"]'
run cycles "$T/stages.jsonl" --class Root --max-length 100 --max-cycles 20000 --no-timing
expect_out '20,001 found \(stopped at --max-cycles; more may exist\)$'
echo "graph_cycles: ok"
