#!/usr/bin/env bash
# Installs dependencies, builds TraceDesk and opens the bundled sample profile.
# Usage: scripts/run-sample.sh [build-dir]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}

bash packaging/install-deps.sh
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release
# What this script runs, not the test programs (scripts/test.sh builds those).
cmake --build "$build" -j "$(nproc 2>/dev/null || echo 2)" --target tracedesk tracedesk-cli
# The sample is a run folder: resources/sample/plugins/profile/<run>/sample-host.xplane.pb, made by
# `tracedesk-cli generate --events 50000 --format xspace --seed 7` (tests/core/tst_sample.cpp
# checks that it still is).
if [ -z "${DISPLAY:-}" ] && [ -z "${WAYLAND_DISPLAY:-}" ]; then
    echo "run-sample: no display (DISPLAY / WAYLAND_DISPLAY unset): run" \
         "'xvfb-run -a $build/app/tracedesk resources/sample', or the command-line tool," \
         "e.g. '$build/app/tracedesk-cli overview resources/sample'." >&2
    exit 1
fi
exec "$build/app/tracedesk" resources/sample
