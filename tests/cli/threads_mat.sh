#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# threads_mat.sh: `leakray threads` answers Eclipse MAT's Thread Overview questions on real
# dumps. openjdk_jdk11_04_x64.hprof.gz: thread main's retained size counts the 5.4 MB its
# local CreateCollectionDump holds (the Thread object alone retains a few hundred bytes), it is
# RUNNABLE and not a daemon, "Reference Handler" is a daemon; dialer.android-hprof: a local
# holding a class object prints the class it names, and Android threads carry no state.
# --top N lists the N threads that retain most, most first, and counts the rest (a dump of
# thousands of threads printed them all, in dump order).
set -euo pipefail
. "$(dirname "$0")/lib/common.bash"
cli_init threads-mat
cli_fixtures
jdk=$FIX/openjdk_jdk11_04_x64.hprof.gz

run threads --json --no-timing "$jdk"
expect_rc 0
json_eq '[t for t in d["threads"] if t["name"] == "main"][0]["retained_bytes"] > 5393816' true
json_eq '[t for t in d["threads"] if t["name"] == "main"][0]["object_retained_bytes"] < 10000' true
json_eq '[[t["state"], t["daemon"]] for t in d["threads"] if t["name"] == "main"][0]' \
    '["RUNNABLE", false]'
json_eq '[t["daemon"] for t in d["threads"] if t["name"] == "Reference Handler"][0]' true
json_eq '[t["state"] for t in d["threads"] if t["name"] == "Finalizer"][0]' WAITING
run threads --no-timing "$jdk"
expect_out '^Thread "main" serial 1 \(java\.lang\.Thread 0xe0c2ac98, retained with locals 5,39[0-9],[0-9]{3} bytes \(5\.4 MB\)\) RUNNABLE$'
expect_out '^Thread "Reference Handler" .* RUNNABLE daemon$'

run threads --json --no-timing --top 2 "$jdk"
json_eq '[t["name"] for t in d["threads"]][0]' main
json_eq 'len(d["threads"]) == 2 and d["threads_total"] > 2' true
json_eq 'd["threads"][0]["retained_bytes"] >= d["threads"][1]["retained_bytes"]' true
all=$(json_get 'd["threads_total"]')
run threads --json --no-timing "$jdk"
json_eq 'len(d["threads"]) == d["threads_total"]' true
run threads --no-timing --top 1 "$jdk"
expect_out '^Thread "main" serial 1 '
expect_out "^$((all - 1)) more threads, each retaining at most the last one's \\(--top 0 shows all\\)$"
[ "$(grep -c '^Thread ' "$T/out")" = 1 ] || fail "--top 1: $(grep -c '^Thread ' "$T/out") threads"

run threads --no-timing "$FIX/dialer.android-hprof"
expect_rc 0
expect_out '^    local class android\.app\.ActivityThread 0xb0d99630, retained '
run threads --json --no-timing "$FIX/dialer.android-hprof"
json_eq '[t["state"] for t in d["threads"] if t["name"] == "main"][0]' null
json_eq '"class android.app.ActivityThread" in [l["class"] for t in d["threads"] for l in t["locals_without_frame"]]' true
echo "threads_mat: ok"
