#!/usr/bin/env bash
# check-layers.sh: fails when a source file includes a header from a layer above its own
# (docs/style.md: graph -> base; format, rules -> graph; analysis -> graph, rules;
# report, store, query -> analysis, and report -> format/nscan.h, query/result.h and
# store/store_result.h alone; cli/ may include anything), or when a C line is over 100 columns.
set -euo pipefail
cd "$(dirname "$0")/.."
declare -A allowed=(
  [base]="base"
  [graph]="base graph"
  [format]="base graph format"
  [rules]="base graph rules"
  [analysis]="base graph rules analysis"
  [report]="base graph rules analysis report"
  [store]="base graph rules analysis store"
  [query]="base graph rules analysis query"
  [watch]="base watch"
)
bad=0
for layer in "${!allowed[@]}"; do
  [ -d "src/$layer" ] || continue
  while IFS= read -r line; do
    file=${line%%:*}
    inc=$(sed -E 's/.*#include "([a-z_]+)\/.*/\1/' <<<"$line")
    # One header across: a native scan is analysed in the monitored process, so the parsed
    # scan report is the result the report layer renders (src/report/native.c).
    [ "$layer" = report ] && grep -q '#include "format/nscan.h"' <<<"$line" && continue
    # And one beside: a SQL statement's rows are the query layer's answer, plain data the
    # report layer renders (src/report/table.c); the rest of query/ holds SQLite handles.
    [ "$layer" = report ] && grep -q '#include "query/result.h"' <<<"$line" && continue
    # And one more: the leak store's results are plain data (no functions) the report layer
    # renders (src/report/store.c, dashboard.c); the store itself stays out of its reach.
    [ "$layer" = report ] && grep -q '#include "store/store_result.h"' <<<"$line" && continue
    case " ${allowed[$layer]} leakray " in
      *" $inc "*) ;;
      *) echo "check-layers: $file includes $inc/ (layer $layer may include: ${allowed[$layer]})" >&2; bad=1 ;;
    esac
  done < <(grep -HE '^#include "[a-z_]+/' src/$layer/*.[ch] 2>/dev/null || true)
done
long=$(git ls-files '*.c' '*.h' 2>/dev/null | xargs -r awk 'length > 100 {print FILENAME":"FNR}' || true)
if [ -n "$long" ]; then
  echo "check-layers: lines over 100 columns (docs/style.md):" >&2
  echo "$long" >&2
  bad=1
fi
exit $bad
