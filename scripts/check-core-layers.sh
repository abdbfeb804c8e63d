#!/usr/bin/env bash
# Fails when a lower layer of core/ includes a header of a layer above it. The store and its
# readers stand alone: base <- model <- io, query; the generators (generate) write what the
# readers read and need nothing above io; analyses, legacy tool files, comparison and capture
# sit above and may include them, never the other way round (core/README.md).
set -euo pipefail
cd "$(dirname "$0")/.."
declare -A allowed=(
    [base]=""
    [model]="base"
    [io]="base model"
    [query]="base model"
    [generate]="base model io"
)
status=0
for folder in "${!allowed[@]}"; do
    for used in $(grep -rhoE '^\s*#\s*include\s*"core/[a-z]+/' "core/$folder" \
                  | sed -E 's/.*"core\/([a-z]+)\//\1/' | sort -u); do
        [ "$used" = "$folder" ] && continue
        if [[ " ${allowed[$folder]} " != *" $used "* ]]; then
            echo "core/$folder must not include core/$used:" >&2
            grep -rnE "^\s*#\s*include\s*\"core/$used/" "core/$folder" >&2
            status=1
        fi
    done
done
[ $status -eq 0 ] && echo "core/ layers include only downwards"
exit $status
