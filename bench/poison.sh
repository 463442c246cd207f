#!/usr/bin/env bash
# Cost of the poison checks (issue 24): the checks on the four pinned
# reference servers' listings (go test -bench BenchmarkCheckPoison) against
# one probe of @modelcontextprotocol/server-everything (hyperfine, default
# injection and grading, sandbox none), measured in the same run. Target:
# the checks cost at most 5% of the probe.
#
#   bench/poison.sh                 # RUNS=5 by default
set -euo pipefail
cd "$(dirname "$0")/.."
out=bench/out
mkdir -p "$out"
cache="${CACHE:-$PWD/.cache/mcpvet}"
runs="${RUNS:-5}"
command -v hyperfine >/dev/null || { echo "bench/poison.sh needs hyperfine (apt-get install hyperfine)" >&2; exit 2; }
OUT="$out/mcpvet" scripts/build.sh >/dev/null
target=npm:@modelcontextprotocol/server-everything@2026.1.26
"$out/mcpvet" probe --quiet --cache-dir "$cache" --db "$out/poison-bench.db" "$target" >/dev/null || true
server="$cache/npm/@modelcontextprotocol+server-everything@2026.1.26/node_modules/@modelcontextprotocol/server-everything/dist/index.js"
[ -f "$server" ] || server="$(readlink -f "$cache/npm/@modelcontextprotocol+server-everything@2026.1.26/node_modules/.bin/mcp-server-everything")"
hyperfine --warmup 1 --runs "$runs" --export-json "$out/poison-probe.json" \
  -n "mcpvet probe server-everything (sandbox none)" "$out/mcpvet probe --quiet --sandbox none --db $out/poison-bench.db -- node $server"
go test ./probe -run '^$' -bench 'BenchmarkCheckPoison$' -count "$runs" | tee "$out/poison-bench.txt"
python3 - "$out/poison-probe.json" "$out/poison-bench.txt" <<'PY'
import json, re, statistics, sys
probe = json.load(open(sys.argv[1]))["results"][0]["median"]
ns = [float(m.group(1)) for m in re.finditer(r"BenchmarkCheckPoison\S*\s+\d+\s+([\d.]+) ns/op", open(sys.argv[2]).read())]
checks = statistics.median(ns) / 1e9
print(f"probe median {probe*1000:.0f} ms; poison checks on the 4 listings median {checks*1000:.1f} ms; ratio {100*checks/probe:.2f}% (target <= 5%)")
PY
