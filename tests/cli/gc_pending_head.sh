#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# gc_pending_head.sh: HotSpot up to JDK 8 keeps the head of the GC's pending list (references
# it has just cleared) in the static java.lang.ref.Reference.pending; like the list's links
# (dom_gc_link) it owns nothing. On sun_jdk5_13_x32.hprof the head is the WeakReference an
# MS1252$Encoder caches (cachedDecoder): its dominator is that encoder in show and sql, not
# the GC roots.
set -euo pipefail
. "$(dirname "$0")/lib/common.bash"
cli_init gc_pending_head
cli_fixtures
DUMP=$FIX/sun_jdk5_13_x32.hprof
[ -f "$DUMP" ] || skip "no $DUMP"

run show --no-timing "$DUMP" java.lang.ref.Reference
expect_rc 0
expect_out '^  object +pending = 0x27c30c70 java.lang.ref.WeakReference$'

run show --no-timing "$DUMP" 0x27c30c70
expect_rc 0
expect_out '^dominator: +0x27c4c168 sun\.nio\.cs\.MS1252\$Encoder$'

run sql "$DUMP" "select dominator from objects where id = 667094128"
expect_rc 0
expect_out '^667205992$'
echo "gc_pending_head: ok"
