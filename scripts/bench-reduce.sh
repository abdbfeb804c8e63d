#!/usr/bin/env bash
# Measures the reduce of a large distributed run: generates N small Kineto ranks, runs the map
# step on each (GNU parallel when installed, else xargs, two at a time), then times the reduce
# of the N summary files and reports its wall time and peak RSS (GNU time), with the map's mean
# time per rank. The goal for 1,024 ranks is <= 10 s and <= 1 GB.
# Usage: scripts/bench-reduce.sh [ranks (1024)] [events per rank (2000)] [build-dir (build)]
set -euo pipefail
cd "$(dirname "$0")/.."
ranks=${1:-1024}
events=${2:-2000}
build=${3:-build}
cli="$PWD/$build/app/tracedesk-cli"
[ -x "$cli" ] || { echo "bench-reduce: build tracedesk-cli first ($cli)" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "bench-reduce: needs GNU time (Debian package time)" >&2; exit 2; }

work=$(mktemp -d "${TMPDIR:-/tmp}/tracedesk-bench-reduce-XXXXXX")
trap 'rm -rf "$work"' EXIT

"$cli" generate --format kineto --ranks "$ranks" --events "$events" "$work/run" > /dev/null
echo "run: $ranks ranks, $(du -sh "$work/run" | cut -f1) of traces"

start=$(date +%s.%N)
if parallel --version 2>/dev/null | grep -q '^GNU parallel'; then
    ls "$work"/run/* | parallel --will-cite -j2 --halt now,fail=1 \
        "$cli" distributed --map {} --out "$work/sums" > /dev/null
else
    ls "$work"/run/* | xargs -P2 -I{} "$cli" distributed --map {} --out "$work/sums" > /dev/null
fi
end=$(date +%s.%N)
echo "map: $(echo "$start $end $ranks" | awk '{printf "%.1f s for every rank, two at a time: %.3f s per rank", $2 - $1, 2 * ($2 - $1) / $3}')"
echo "summaries: $(du -sh "$work/sums" | cut -f1)"

/usr/bin/time -v "$cli" distributed --reduce "$work/sums" --json > "$work/reduced.json" \
    2> "$work/time.txt"
awk -F': ' '/Elapsed \(wall clock\)/ {print "reduce: wall " $2}
            /Maximum resident set size/ {printf "reduce: peak RSS %.1f MB\n", $2 / 1024}' \
    "$work/time.txt"
