# SPDX-License-Identifier: Apache-2.0
# need_lib.bash: the check an end-to-end test makes for the programs it runs (sourced).
#   need_tools PROGRAM...  returns when every PROGRAM is on PATH. Otherwise the test is
#                          skipped (exit 77), or fails under CI=true: CI installs them all,
#                          so a skip there would hide a broken setup.
need_tools() {
    local p missing=()
    for p in "$@"; do
        command -v "$p" >/dev/null || missing+=("$p")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    local list
    list=$(IFS=/; echo "${missing[*]}")
    if [ "${CI:-}" = true ]; then
        echo "FAIL: $list required under CI=true" >&2
        exit 1
    fi
    echo "SKIP: $list not installed"
    exit 77
}
