#!/usr/bin/env bash
# Installs every Debian 12 package TraceDesk needs to build, test and package.
# Idempotent and non-interactive; run as root (or through sudo).
set -euo pipefail

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi

export DEBIAN_FRONTEND=noninteractive
APT_OPTS=(-y -q --no-install-recommends -o DPkg::Lock::Timeout=300)

$SUDO apt-get -o DPkg::Lock::Timeout=300 update -q
$SUDO apt-get install "${APT_OPTS[@]}" \
    build-essential cmake ninja-build pkg-config dpkg-dev file \
    qt6-base-dev qt6-base-dev-tools libqt6opengl6-dev qt6-charts-dev libxkbcommon-dev \
    libgl-dev libegl-dev libgl1-mesa-dri libglx-mesa0 \
    libprotobuf-dev protobuf-compiler libgrpc++-dev libgrpc-dev protobuf-compiler-grpc \
    libzstd-dev zlib1g-dev libsimdjson-dev libsqlite3-dev libgraphviz-dev \
    xvfb xauth x11-apps fonts-dejavu-core \
    shared-mime-info desktop-file-utils xdg-utils libfile-mimeinfo-perl libxml2-utils parallel \
    clang libclang-rt-14-dev llvm-14 lld
