#!/usr/bin/env bash
# Builds the mcpvet binary. The README, `make build`, `make install`,
# scripts/release.sh, the Dockerfile and CI's build test all use this
# script with the same flags, so they share one Go build cache: the first
# build compiles go-sqlite3's C code (the slow part: minutes on a loaded
# 2-core machine), every later one only what changed.
#
#   scripts/build.sh                 # -> bin/mcpvet
#   OUT=/usr/local/bin/mcpvet VERSION=v1.2.3 scripts/build.sh
#   GOARCH=arm64 CC=aarch64-linux-gnu-gcc OUT=dist/mcpvet-arm64 scripts/build.sh
set -euo pipefail
cd "$(dirname "$0")/.."
out="${OUT:-bin/mcpvet}"
version="${VERSION:-$(git describe --tags --always --dirty 2>/dev/null || echo dev)}"
# go-sqlite3 needs cgo.
export CGO_ENABLED=1
# Progress: -v names each package as it is compiled (nothing when the
# cache has them all), on stderr, unless QUIET=1.
verbose=-v
if [ "${QUIET:-}" = 1 ]; then
  verbose=
else
  echo "building $out ($version; the first build compiles SQLite's C code and takes minutes, later ones seconds)" >&2
fi
start=$(date +%s)
go build $verbose -trimpath \
  -ldflags "-s -w -X github.com/mcpvet/mcpvet/internal/version.Version=${version}" \
  -o "$out" ./cmd/mcpvet
echo "built $out ($version) in $(( $(date +%s) - start ))s"
