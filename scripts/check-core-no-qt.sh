#!/usr/bin/env bash
# Fails when a file under core/ includes a Qt header: core/ must build without Qt.
set -euo pipefail
cd "$(dirname "$0")/.."
hits=$(grep -rnE '^\s*#\s*include\s*[<"](Q[A-Za-z]|Qt[A-Za-z]*/)' core || true)
if [ -n "$hits" ]; then
    echo "core/ must not include Qt headers:" >&2
    echo "$hits" >&2
    exit 1
fi
echo "core/ includes no Qt header"
