#!/bin/sh
# Sandbox benchmarks.
#
#   bench/sandbox.sh          Go benchmarks (offline: loopback npm registry)
#   bench/sandbox.sh --real   also real npm servers through the registry
#
# Targets: builtin start overhead over none at most 50 ms
# (BenchmarkStart/builtin - BenchmarkStart/none); a warm npm cache launch
# at least 5x faster than a cold one (BenchmarkNPMLaunch/cold / warm).
set -eu
cd "$(dirname "$0")/.."
go test -run '^$' -bench 'BenchmarkStart|BenchmarkNPMLaunch' -benchtime 20x -count 3 ./sandbox/
if [ "${1:-}" = "--real" ]; then
	for pkg in server-everything@2026.1.26 server-memory@2026.1.26; do
		echo "== @modelcontextprotocol/$pkg"
		go run ./bench/sandboxbench -package "@modelcontextprotocol/${pkg%@*}" -version "${pkg#*@}"
	done
fi
