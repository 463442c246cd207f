#!/usr/bin/env bash
# Builds the release binaries of mcpvet with cgo SQLite: linux/amd64 and
# linux/arm64 into dist/, each with its SHA-256 sum, through scripts/build.sh
# (the same flags and build cache as every other build). A foreign
# architecture needs a cross C compiler: on Debian,
#   apt-get install gcc-aarch64-linux-gnu libc6-dev-arm64-cross
#
#   scripts/release.sh                       # VERSION from git describe
#   VERSION=v1.2.3 ARCHES=amd64 scripts/release.sh
set -euo pipefail
cd "$(dirname "$0")/.."
version="${VERSION:-$(git describe --tags --always --dirty 2>/dev/null || echo dev)}"
host="$(go env GOHOSTARCH)"
dist="${DIST:-dist}"
mkdir -p "$dist"
failed=0
for arch in ${ARCHES:-amd64 arm64}; do
  case "$arch" in
    "$host") cc="${CC:-gcc}" ;;
    arm64) cc="${CC_ARM64:-aarch64-linux-gnu-gcc}" ;;
    amd64) cc="${CC_AMD64:-x86_64-linux-gnu-gcc}" ;;
    *) echo "release: GOARCH $arch: not a release architecture; use amd64 or arm64" >&2; failed=1; continue ;;
  esac
  if ! command -v "$cc" >/dev/null; then
    echo "release: linux/$arch needs the C cross compiler $cc (cgo SQLite); install it (Debian: apt-get install gcc-aarch64-linux-gnu libc6-dev-arm64-cross) or set CC_ARM64" >&2
    failed=1
    continue
  fi
  name="mcpvet-${version}-linux-${arch}"
  OUT="$dist/$name" VERSION="$version" GOOS=linux GOARCH="$arch" CC="$cc" QUIET="${QUIET:-}" scripts/build.sh
  (cd "$dist" && sha256sum "$name" > "$name.sha256")
done
ls -l "$dist"
exit "$failed"
