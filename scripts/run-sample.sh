#!/usr/bin/env bash
# Installs dependencies, builds TraceDesk, makes the bundled sample profile and opens it.
# Usage: scripts/run-sample.sh [build-dir]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}

bash packaging/install-deps.sh
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo
cmake --build "$build" -j "$(nproc 2>/dev/null || echo 2)"
sample="$build/sample/plugins/profile/2024_01_01_00_00_00/sample-host.xplane.pb"
if [ ! -f "$sample" ]; then
    mkdir -p "$(dirname "$sample")"
    "$build/app/tracedesk-cli" generate --events 200000 --format xspace --seed 7 "$sample"
fi
exec "$build/app/tracedesk" "$build/sample"
