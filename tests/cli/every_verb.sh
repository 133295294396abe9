#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# every_verb.sh: the contracts every verb shares, checked for every verb `leakray --help`
# lists (a verb added later is covered or fails here), on small dumps kept in the repo (a
# hand-made HPROF and a Node heap snapshot), so the test needs no fixtures:
#   - --json prints one valid JSON object with "schema_version": 2 and exit 0, for HPROF and
#     V8 input wherever the verb reads that format;
#   - exit 2 for an unknown option (nothing on stdout), 3 for garbage input (message with the
#     byte offset), 4 for a missing file, 5 when the input inflates past --max-inflate;
#   - under --json each of those errors is a JSON object on stdout with the same exit.
set -euo pipefail
. "$(dirname "$0")/lib/common.bash"
cli_init every_verb
command -v python3 >/dev/null || skip "python3 not installed"

H=$LEAKRAY_SRC/tests/corrupt/handmade/valid-minimal.hprof
V=$LEAKRAY_SRC/tests/fuzz/corpus/v8_load/node20-weak.heapsnapshot
[ -f "$H" ] && [ -f "$V" ] || fail "repo test dumps missing"
printf 'neither HPROF nor a heap snapshot, just text\n%.0s' 1 2 3 4 >"$T/garbage.bin"
gzip -c "$H" >"$T/small.hprof.gz"
missing=$T/no-such-file.hprof
echo "SELECT class, count(*), sum(retained) FROM objects GROUP BY class" >"$T/query.sql"

# args VERB INPUT FORMAT: the verb's arguments with INPUT in every input position.
args() {
    local v=$1 f=$2 fmt=$3 id
    id=0x1010
    [ "$fmt" = v8 ] && id=@7
    case $v in
    show | path) echo "$f $id" ;;
    diff) echo "$f $f" ;;
    leaks) # the baseline given again as the target is refused, and so is a copy of it
        # unless forced (one snapshot twice: tests/e2e/leaks_order.sh)
        cp "$f" "$T/leaks-copy-$fmt" 2>/dev/null || true
        echo "--baseline $f --target $T/leaks-copy-$fmt --final $T/leaks-copy-$fmt --force" ;;
    strip) echo "$f -o $T/out-$v-$fmt.hprof" ;;
    convert) echo "$f -o $T/out-$v-$fmt.heapsnapshot" ;;
    sql) echo "$f --sql-file $T/query.sql" ;;
    instances) if [ "$fmt" = v8 ]; then echo "$f global"; else echo "$f Foo"; fi ;;
    report) echo "$f -o $T/out-$v-$fmt.html" ;;
    *) echo "$f" ;;
    esac
}

run --help
verbs=$(awk '/^commands:/ {on = 1; next} on && /^  [a-z]/ {print $1} on && /^$/ {on = 0}' "$T/out")
[ "$(wc -w <<<"$verbs")" -ge 14 ] || fail "only $(wc -w <<<"$verbs") verbs listed"

# keep KIND LABEL: files the last stdout for the one JSON pass at the end (python start-up is
# slow on some machines: one interpreter for all documents). KIND: ok | eN (error, exit N).
mkdir -p "$T/json"
keep() { cp "$T/out" "$T/json/$1.$2.json"; }

checked=0
for v in $verbs; do
    # attach and watch drive the JVM agent (a PID, not a dump): tests/e2e/agent_*.sh; native
    # reads scan reports, not dumps: tests/cli/native_cli.sh holds its contracts.
    case $v in attach | watch | native) continue ;; esac
    for fmt in hprof v8; do
        f=$H
        [ "$fmt" = v8 ] && f=$V
        # shellcheck disable=SC2046
        run "$v" --json --no-timing $(args "$v" "$f" "$fmt")
        if [ "$v" = strip ] && [ "$fmt" = v8 ]; then
            # strip rewrites HPROF only: a snapshot is bad input for it, said in JSON.
            expect_rc 3
            keep e3 "$v-v8"
            [ ! -e "$T/out-strip-v8.hprof" ] || fail "strip left an output for refused input"
            continue
        fi
        [ "$RC" = 0 ] || fail "$v --json on $fmt exited $RC"
        keep ok "$v-$fmt"
        checked=$((checked + 1))
    done

    # shellcheck disable=SC2046
    run "$v" --frobnicate $(args "$v" "$H" hprof)
    expect_rc 2
    [ ! -s "$T/out" ] || fail "$v: usage error wrote to stdout"
    expect_err "unknown option '--frobnicate'"

    # shellcheck disable=SC2046
    run "$v" $(args "$v" "$T/garbage.bin" hprof)
    expect_rc 3
    expect_err "garbage\.bin: offset 0x[0-9a-f]+"
    # shellcheck disable=SC2046
    run "$v" --json $(args "$v" "$T/garbage.bin" hprof)
    expect_rc 3
    keep e3 "$v-garbage"

    # shellcheck disable=SC2046
    run "$v" --json $(args "$v" "$missing" hprof)
    expect_rc 4
    keep e4 "$v-missing"

    # shellcheck disable=SC2046
    run "$v" --json --max-inflate 100 $(args "$v" "$T/small.hprof.gz" hprof)
    expect_rc 5
    keep e5 "$v-inflate"
    # and the same gzip input loads under a sufficient cap
    # shellcheck disable=SC2046
    run "$v" --json --no-timing --max-inflate 1M $(args "$v" "$T/small.hprof.gz" gz)
    expect_rc 0
    keep ok "$v-gz"
done

python3 - "$T/json" <<'PY' || fail "JSON checks failed"
import glob, json, os, sys
bad = 0
files = sorted(glob.glob(sys.argv[1] + "/*.json"))
for f in files:
    kind, label = os.path.basename(f).split(".")[:2]
    try:
        d = json.load(open(f))
        assert isinstance(d, dict) and d.get("schema_version") == 2, "no schema_version 2"
        if kind == "ok":
            assert "error" not in d, d.get("error")
        else:
            e = d["error"]
            assert e["exit"] == int(kind[1:]), e
            assert sorted(e) == ["code", "exit", "message", "offset"], sorted(e)
            if kind == "e3":
                assert isinstance(e["offset"], int), e
            if kind == "e4":
                assert e["code"] == "io" and "no-such-file.hprof" in e["message"], e
    except Exception as x:  # report every bad document, not only the first
        print(f"FAIL {label} ({kind}): {x!r}")
        bad += 1
print(f"{len(files)} JSON documents checked, {bad} bad")
sys.exit(1 if bad or len(files) < 80 else 0)
PY
echo "every_verb: $(wc -w <<<"$verbs") verbs, $checked JSON documents, exit codes 2/3/4/5 each"
