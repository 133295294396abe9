# SPDX-License-Identifier: Apache-2.0
# dump-stamp.bash: sourced by gen-big-dump.sh and gen-huge-dump.sh (not run by itself). A
# generated benchmark dump is reused as long as it was written from the same generator
# sources with the same parameters; modification times cannot tell (a fresh checkout makes
# every source newer than any dump), so a stamp beside the dump, OUT.stamp, holds the SHA-256
# of the parameters and the sources' contents. Provides:
#   dump_stamp PARAMS SOURCE...   prints the stamp line: the hash, then PARAMS for people
#   dump_cached TOOL OUT STAMP    true when OUT exists and OUT.stamp holds STAMP; a dump with
#                                 no stamp at all (written before stamps) is adopted: its
#                                 stamp is written and it is reused (delete it to rebuild)
#   dump_stamp_write OUT STAMP    records STAMP for OUT, once OUT is complete

dump_stamp() {
    local params=$1 p
    shift
    local sum
    sum=$({
        printf 'params %s\n' "$params"
        for p in "$@"; do
            printf 'source %s %s\n' "$(basename "$p")" "$(wc -c <"$p")"
            cat "$p"
        done
    } | sha256sum | cut -d' ' -f1)
    printf '%s %s\n' "$sum" "$params"
}

dump_cached() {
    local tool=$1 out=$2 stamp=$3
    [ -s "$out" ] || return 1
    if [ ! -e "$out.stamp" ]; then
        echo "$tool: reusing $out, written before source stamps (delete it to rebuild)" >&2
        dump_stamp_write "$out" "$stamp"
        return 0
    fi
    [ "$(cat "$out.stamp")" = "$stamp" ]
}

dump_stamp_write() {
    # through a temporary name: a stamp is either whole or absent
    printf '%s\n' "$2" >"$1.stamp.tmp"
    mv "$1.stamp.tmp" "$1.stamp"
}
