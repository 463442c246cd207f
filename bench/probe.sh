#!/usr/bin/env bash
# Probe speed on a real server (issue: mcpvet probe foundation).
#
# Compares, with hyperfine, on @modelcontextprotocol/server-everything:
#   bare        the go-sdk handshake + one tools/list (bench/bare): the floor
#   mcpvet probe --no-inject, without and with the default sandbox
#   mcpvet probe with failure injection and grading (the default)
#   the MCP Inspector's CLI listing tools (npx @modelcontextprotocol/inspector --cli)
#
#   bench/probe.sh            # results in bench/out/probe.md
set -euo pipefail
cd "$(dirname "$0")/.."
out=bench/out
mkdir -p "$out"
cache="${CACHE:-$PWD/.cache/mcpvet}"
runs="${RUNS:-10}"
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

probe="$out/mcpvet probe --quiet --cache-dir $cache --db $out/bench.db"
hyperfine --warmup 1 --runs "$runs" --export-markdown "$out/probe.md" --export-json "$out/probe.json" \
  -n "bare go-sdk handshake + tools/list" "$out/bare -- node $server" \
  -n "mcpvet probe --no-inject --sandbox none" "$probe --no-inject --sandbox none -- node $server" \
  -n "mcpvet probe --no-inject (sandbox auto)" "$probe --no-inject $target" \
  -n "mcpvet probe (sandbox auto, injection + grading)" "$probe $target" \
  -n "inspector@0.17.2 --cli --method tools/list" "$out/inspector/node_modules/.bin/mcp-inspector --cli node $server --method tools/list"
cat "$out/probe.md"
