#!/usr/bin/env bash
# Probe speed on a real server (issue: mcpvet probe foundation).
#
# Compares, with hyperfine, on @modelcontextprotocol/server-everything:
#   bare        the go-sdk handshake + one tools/list (bench/bare): the floor
#   mcpvet probe --no-inject, without and with the default sandbox
#   mcpvet probe with failure injection and grading (the default)
#   the MCP Inspector's CLI listing tools (npx @modelcontextprotocol/inspector --cli)
#
# The issue-25 target is the default probe (sandbox auto, injection,
# first retry, context cost) at <= 1.05x bare, same run; the script prints
# that ratio and the load average before and after. Run it in a quiet
# window (on the shared build machine: /work/notes/quiet.sh bench/probe.sh).
# Each run gets a fresh database, as the bench used to share one that grew
# by ~0.6 MB a probe.
#
#   bench/probe.sh            # results in bench/out/probe.md
#   RUNS=15 NO_INSPECTOR=1 bench/probe.sh
set -euo pipefail
cd "$(dirname "$0")/.."
out=bench/out
mkdir -p "$out"
cache="${CACHE:-$PWD/.cache/mcpvet}"
runs="${RUNS:-15}"
command -v hyperfine >/dev/null || { echo "bench/probe.sh needs hyperfine (apt-get install hyperfine)" >&2; exit 2; }

OUT="$out/mcpvet" scripts/build.sh >/dev/null
go build -o "$out/bare" ./bench/bare
target=npm:@modelcontextprotocol/server-everything@2026.1.26
# Warm the install cache so every variant measures the server, not npm.
"$out/mcpvet" probe --quiet --cache-dir "$cache" --db "$out/bench.db" "$target" >/dev/null
server="$cache/npm/@modelcontextprotocol+server-everything@2026.1.26/node_modules/@modelcontextprotocol/server-everything/dist/index.js"
[ -f "$server" ] || server="$(readlink -f "$cache/npm/@modelcontextprotocol+server-everything@2026.1.26/node_modules/.bin/mcp-server-everything")"
if [ ! -x "$out/inspector/node_modules/.bin/mcp-inspector" ]; then
  npm install --silent --no-audit --no-fund --prefix "$out/inspector" @modelcontextprotocol/inspector@0.17.2 >/dev/null
fi

db="$out/bench-$$"
mkdir -p "$db"
trap 'rm -rf "$db"' EXIT
probe="$out/mcpvet probe --quiet --cache-dir $cache"
inspector=()
if [ -z "${NO_INSPECTOR:-}" ]; then
  inspector=(-n "inspector@0.17.2 --cli --method tools/list" "$out/inspector/node_modules/.bin/mcp-inspector --cli node $server --method tools/list")
fi
echo "load before: $(uptime)"
# -N: no shell between hyperfine and the command (its startup would be
# counted in every variant).
hyperfine -N --warmup 2 --runs "$runs" --export-markdown "$out/probe.md" --export-json "$out/probe.json" \
  -n "bare go-sdk handshake + tools/list" "$out/bare -- node $server" \
  -n "mcpvet probe --no-inject --sandbox none" "$probe --db $db/a.db --no-inject --sandbox none -- node $server" \
  -n "mcpvet probe --no-inject (sandbox auto)" "$probe --db $db/b.db --no-inject $target" \
  -n "mcpvet probe --sandbox none (injection + grading)" "$probe --db $db/c.db --sandbox none $target" \
  -n "mcpvet probe (default: sandbox auto, injection + grading)" "$probe --db $db/d.db $target" \
  "${inspector[@]}"
echo "load after: $(uptime)"
cat "$out/probe.md"
jq -r '.results as $r | ($r[] | select(.command | startswith("bare")) | .mean) as $bare |
  $r[] | "\(.command): \(.mean * 1000 | round) ms, \(.mean / $bare * 100 | round / 100)x bare"' "$out/probe.json"
