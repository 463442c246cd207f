#!/usr/bin/env bash
# Builds the mcpvet binary. The README, the Dockerfile and CI's build test
# all use this script, so the image is built the way a developer builds.
#
#   scripts/build.sh                 # -> bin/mcpvet
#   OUT=/usr/local/bin/mcpvet VERSION=v1.2.3 scripts/build.sh
set -euo pipefail
cd "$(dirname "$0")/.."
out="${OUT:-bin/mcpvet}"
version="${VERSION:-$(git describe --tags --always --dirty 2>/dev/null || echo dev)}"
# go-sqlite3 needs cgo.
export CGO_ENABLED=1
go build -trimpath \
  -ldflags "-s -w -X github.com/mcpvet/mcpvet/internal/version.Version=${version}" \
  -o "$out" ./cmd/mcpvet
echo "built $out ($version)"
