#!/usr/bin/env bash
# Installs dependencies, builds TraceDesk and opens the bundled sample profile.
# Usage: scripts/run-sample.sh [build-dir]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}

bash packaging/install-deps.sh
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo
cmake --build "$build" -j "$(nproc 2>/dev/null || echo 2)"
# The sample is a run folder: resources/sample/plugins/profile/<run>/sample-host.xplane.pb, made by
# `tracedesk-cli generate --events 50000 --format xspace --seed 7` (tests/core/tst_sample.cpp
# checks that it still is).
exec "$build/app/tracedesk" resources/sample
