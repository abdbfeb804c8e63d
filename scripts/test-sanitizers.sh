#!/usr/bin/env bash
# Builds TraceDesk with sanitizers (clang) and runs:
#   1. the threading tests (readers, store and cache, search, comparison, capture) and the
#      fuzzers' replays under ASan + UBSan (preset `asan`, target `sanitizer_tests`;
#      `cmake --build --preset asan` and `xvfb-run -a ctest --preset asan` run every test),
#   2. every libFuzzer target for FUZZ_SECONDS each (default 30; scripts/fuzz.sh),
#   3. the threading tests under TSan (preset `tsan`, CTest label `threads`).
# Usage: scripts/test-sanitizers.sh [asan|fuzz|tsan ...]   (default: all three)
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc 2>/dev/null || echo 2)
steps=("$@")
[ ${#steps[@]} -eq 0 ] && steps=(asan fuzz tsan)

supp=$PWD/tests/sanitizers
export ASAN_OPTIONS="detect_leaks=1:detect_stack_use_after_return=0"
export LSAN_OPTIONS="suppressions=$supp/lsan.supp:print_suppressions=0"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:suppressions=$supp/ubsan.supp"
export TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1:suppressions=$supp/tsan.supp"
export XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-$(mktemp -d)}
symbolizer=$(command -v llvm-symbolizer || command -v llvm-symbolizer-14 || true)
[ -n "$symbolizer" ] && export ASAN_SYMBOLIZER_PATH=$symbolizer TSAN_SYMBOLIZER_PATH=$symbolizer

timed() {
    local label=$1; shift
    local start=$(date +%s)
    "$@"
    echo "== $label: $(( $(date +%s) - start )) s"
}

for step in "${steps[@]}"; do
    case $step in
    asan)
        timed "asan configure+build" bash -c 'cmake --preset asan >/dev/null && cmake --build --preset asan -j '"$jobs"' --target sanitizer_tests'
        timed "asan tests" ctest --test-dir build-asan --output-on-failure -j "$jobs" -L 'threads|fuzz'

        ;;
    fuzz)
        timed "fuzz" bash scripts/fuzz.sh build-asan "${FUZZ_SECONDS:-30}"
        ;;
    tsan)
        timed "tsan configure+build" bash -c 'cmake --preset tsan >/dev/null && cmake --build --preset tsan -j '"$jobs"' --target threading_tests'
        timed "tsan tests" ctest --test-dir build-tsan --output-on-failure -j "$jobs" -L threads
        ;;
    *)
        echo "test-sanitizers.sh: unknown step '$step' (asan, fuzz or tsan)" >&2
        exit 2
        ;;
    esac
done
