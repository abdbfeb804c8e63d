#!/bin/sh
# Takes a PNG of the TraceDesk main window with a profile loaded, under a virtual X server.
# Builds nothing. Usage: scripts/screenshot.sh BUILD_DIR PROFILE [OUT.png]
set -eu

if [ $# -lt 2 ] || [ $# -gt 3 ]; then
    echo "usage: $0 BUILD_DIR PROFILE [OUT.png]" >&2
    exit 2
fi
build=$1
profile=$2
out=${3:-tracedesk-screenshot.png}
app="$build/app/tracedesk"

if [ ! -x "$app" ]; then
    echo "$0: $app not found; build the 'tracedesk' target first" >&2
    exit 1
fi
if ! command -v xvfb-run >/dev/null 2>&1; then
    echo "$0: xvfb-run is required (package xvfb, plus xauth)" >&2
    exit 1
fi
if [ -z "${XDG_RUNTIME_DIR:-}" ]; then
    XDG_RUNTIME_DIR=$(mktemp -d)
    export XDG_RUNTIME_DIR
fi

# The xcb platform under Xvfb; the window grabs itself once the profile has loaded.
QT_QPA_PLATFORM=xcb xvfb-run -a -s "-screen 0 1600x1000x24" \
    "$app" --screenshot "$out" "$profile"
echo "$out"
