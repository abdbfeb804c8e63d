#!/usr/bin/env bash
# Runs every libFuzzer target of a fuzz build for a bounded time; fails on any crash, leak,
# timeout or out-of-memory. Build first with the `asan` preset:
#   cmake --preset asan && cmake --build --preset asan
#   scripts/fuzz.sh build-asan 60          # seconds per target (default 60)
# For a long campaign, give hours (`scripts/fuzz.sh build-asan 14400`). New corpus entries stay in
# <build>/fuzz/corpus/<reader>; crashers land in <build>/fuzz/artifacts/<reader>/: copy one into
# tests/fuzz/regressions/<reader>/ once it is fixed, so every build replays it.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build-asan}
seconds=${2:-60}
jobs=${FUZZ_JOBS:-$(nproc 2>/dev/null || echo 2)}

targets=$(find "$build/tests/fuzz" -maxdepth 1 -type f -name 'fuzz_*' -perm -u+x | sort)
if [ -z "$targets" ]; then
    echo "fuzz.sh: no fuzz targets in $build/tests/fuzz (configure with --preset asan)" >&2
    exit 2
fi

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

run_one() {
    local bin=$1 seconds=$2 build=$3
    local name reader work artifacts log
    name=$(basename "$bin")
    reader=${name#fuzz_}
    work="$build/fuzz/corpus/$reader"
    artifacts="$build/fuzz/artifacts/$reader"
    log="$build/fuzz/$reader.log"
    mkdir -p "$work" "$artifacts"
    local seeds=()
    for dir in tests/fuzz/corpus/$reader tests/fuzz/regressions/$reader; do
        [ -d "$dir" ] && seeds+=("$dir")
    done
    if "$bin" -max_total_time="$seconds" -timeout=20 -rss_limit_mb=2560 -max_len=262144 \
        -print_final_stats=1 -artifact_prefix="$artifacts/" "$work" "${seeds[@]}" >"$log" 2>&1; then
        echo "fuzz $reader: ok, $(grep -m1 -o 'stat::number_of_executed_units: *[0-9]*' "$log" \
            | grep -o '[0-9]*$') runs in ${seconds}s, corpus $(ls "$work" | wc -l)"
    else
        echo "fuzz $reader: FAILED (log $log, artifacts $artifacts)"
        tail -n 60 "$log"
        return 1
    fi
}
export -f run_one

start=$(date +%s)
status=0
printf '%s\n' $targets | xargs -P "$jobs" -I{} bash -c 'run_one "$@"' _ {} "$seconds" "$build" \
    || status=1
echo "fuzzed $(echo "$targets" | wc -l) targets for ${seconds}s each in $(( $(date +%s) - start ))s"
exit $status
