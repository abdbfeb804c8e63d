#!/usr/bin/env bash
# Builds the Debian package from BUILD_DIR, unpacks it into a temporary root and checks what a
# desktop needs from it: a valid desktop entry, valid MIME XML, the MIME types resolving for
# profile file names, TraceDesk as their default application, the icons, filled Depends, and
# binaries that run. Usage: scripts/check-package.sh BUILD_DIR
set -euo pipefail

build=$(cd "${1:?usage: $0 BUILD_DIR}" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

fail() { echo "check-package: $*" >&2; exit 1; }

(cd "$build" && cpack -G DEB -B "$work/out" >"$work/cpack.log" 2>&1) \
    || { cat "$work/cpack.log" >&2; fail "cpack -G DEB failed"; }
deb=$(ls "$work"/out/tracedesk_*.deb 2>/dev/null | head -n 1)
[ -n "$deb" ] || fail "no tracedesk_*.deb was produced"
echo "package: $(basename "$deb")"

depends=$(dpkg-deb -f "$deb" Depends)
echo "Depends: $depends"
for lib in libqt6widgets6 libprotobuf libzstd1; do
    case "$depends" in *"$lib"*) ;; *) fail "Depends lacks $lib" ;; esac
done

root="$work/root"
dpkg-deb -x "$deb" "$root"
share="$root/usr/share"
desktop="$share/applications/tracedesk.desktop"
mimexml="$share/mime/packages/tracedesk-mime.xml"
[ -f "$desktop" ] || fail "desktop entry not installed"
[ -f "$mimexml" ] || fail "MIME XML not installed"
[ -f "$share/icons/hicolor/scalable/apps/tracedesk.svg" ] || fail "SVG icon not installed"
for size in 16 32 48 64 128 256; do
    [ -s "$share/icons/hicolor/${size}x${size}/apps/tracedesk.png" ] \
        || fail "${size}x${size} icon not installed"
done

desktop-file-validate "$desktop" || fail "desktop-file-validate rejected $desktop"
xmllint --noout "$mimexml" || fail "xmllint rejected $mimexml"
grep -q '^Exec=tracedesk %F$' "$desktop" || fail "desktop entry must run 'tracedesk %F'"

export XDG_DATA_DIRS="$share:/usr/share" XDG_DATA_HOME="$work/home-data"
export XDG_CONFIG_HOME="$work/home-config" XDG_CONFIG_DIRS="$work/etc-xdg"
# What dpkg's triggers do on a real install, done in the temporary root.
update-mime-database "$share/mime"
update-desktop-database "$share/applications"

mkdir -p "$work/files"
expect_type() {
    local name=$1 want=$2 got
    printf 'x' >"$work/files/$name"
    got=$(xdg-mime query filetype "$work/files/$name")
    [ "$got" = "$want" ] || fail "xdg-mime query filetype $name gave '$got', wanted '$want'"
    echo "$name -> $got"
}
expect_type host1.xplane.pb application/x-xplane-pb
expect_type worker.pt.trace.json application/x-chrome-trace
expect_type step.trace.json.gz application/x-chrome-trace-gzip
expect_type run.pt.trace.json.gz application/x-chrome-trace-gzip
expect_type rank0.rpd application/x-rpd
# File::MimeInfo (what xdg-mime runs here) tries plain `*.ext` globs before any other suffix,
# so rocprofv3's `*_results.json` and `*_kernel_trace.csv` read as JSON and CSV to it; desktops
# that use shared-mime-info's own matching take the longest glob, from the compiled glob list.
expect_glob() {
    grep -qxF "80:$1:$2" "$share/mime/globs2" || fail "MIME glob $2 ($1) is not installed"
    echo "$2 -> $1 (compiled glob)"
}
expect_glob application/x-rocprof-results '*_results.json'
expect_glob application/x-rocprof-csv '*_kernel_trace.csv'
expect_glob application/x-rocprof-csv '*_counter_collection.csv'

default=$(xdg-mime query default application/x-xplane-pb)
[ "$default" = "tracedesk.desktop" ] \
    || fail "default application for XSpace is '$default', wanted tracedesk.desktop"
echo "default for application/x-xplane-pb: $default"

# A double-click is xdg-open: it must start `tracedesk` with the file's path. A stand-in
# tracedesk early on PATH records what it was given.
mkdir -p "$work/bin"
cat >"$work/bin/tracedesk" <<STUB
#!/bin/sh
printf '%s\n' "\$@" >"$work/opened"
STUB
chmod +x "$work/bin/tracedesk"
# xdg-open only consults desktop entries when a display is set; nothing connects to it here.
DISPLAY=${DISPLAY:-:0} PATH="$work/bin:$PATH" xdg-open "$work/files/host1.xplane.pb" >/dev/null 2>&1 || true
for _ in $(seq 50); do [ -s "$work/opened" ] && break; sleep 0.1; done
[ "$(cat "$work/opened" 2>/dev/null)" = "$work/files/host1.xplane.pb" ] \
    || fail "xdg-open did not start tracedesk with the file's path"
echo "xdg-open host1.xplane.pb -> tracedesk $work/files/host1.xplane.pb"

"$root/usr/bin/tracedesk-cli" --version | grep -q '^tracedesk-cli ' || fail "tracedesk-cli --version"
QT_QPA_PLATFORM=offscreen "$root/usr/bin/tracedesk" --version | grep -q '^TraceDesk ' \
    || fail "tracedesk --version"
echo "check-package: ok"
