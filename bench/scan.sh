#!/usr/bin/env bash
# Scan throughput and memory (issue: census scan).
#
# Scans N copies of a fixture server that starts instantly (default: the
# wellbehaved fixture, 4 tools), from a generated client config, and prints
# servers per second and the scanner's peak RSS.
#
#   bench/scan.sh                          # 1000 targets, --concurrency 8, sandbox none, with failure injection
#   N=200 SANDBOX=builtin bench/scan.sh    # other sizes and backends
#   EXTRA=--no-inject bench/scan.sh        # handshake, listing and checks only
set -euo pipefail
cd "$(dirname "$0")/.."
out=bench/out
mkdir -p "$out"
n="${N:-1000}"
conc="${CONCURRENCY:-8}"
sandbox="${SANDBOX:-none}"
fixture="${FIXTURE:-wellbehaved}"
OUT="$out/mcpvet" scripts/build.sh >/dev/null
go build -o "$out/fixtures/" "./testdata/servers/$fixture"
bin="$PWD/$out/fixtures/$fixture"
python3 - "$n" "$bin" > "$out/scan-config.json" <<'PY'
import json, sys
n, bin = int(sys.argv[1]), sys.argv[2]
print(json.dumps({"mcpServers": {f"s{i:05d}": {"command": bin} for i in range(n)}}))
PY
rm -f "$out/scan.db"*
/usr/bin/time -f "peak RSS %M KiB, %e s wall, %U s user, %S s sys" \
  "$out/mcpvet" scan --config "$out/scan-config.json" --db "$out/scan.db" \
  --sandbox "$sandbox" --concurrency "$conc" --quiet ${EXTRA:-}
