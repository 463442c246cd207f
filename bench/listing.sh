#!/usr/bin/env bash
# The scanner's own memory against huge listings (issue: sandbox
# containment, item 7).
#
# Scans N copies of the hostile-listing fixture, each answering tools/list
# with TOOLS filler tools in one page (300,000 make about 14 MiB, just under
# the 16 MiB message limit), or with one tool whose description is PAD
# bytes, at --concurrency N, and prints the scanner's peak RSS. Targets: at
# most 400 MB for 4 servers, 150 MB for one (issue 22 item 9).
#
#   bench/listing.sh                  # 4 servers, concurrency 4, sandbox none
#   N=1 bench/listing.sh              # one server
#   CASE=desc9 bench/listing.sh       # one server, one 9 MiB description
#   CASE=desc15x4 bench/listing.sh    # 4 servers, a 15 MiB description each
#   SANDBOX=bwrap bench/listing.sh    # another backend
#   MCPVET=/path/to/mcpvet bench/listing.sh   # measure another build
set -euo pipefail
cd "$(dirname "$0")/.."
out=bench/out
mkdir -p "$out/fixtures"
case "${CASE:-}" in
  "") ;;
  desc9) N="${N:-1}" TOOLS="${TOOLS:-0}" PAD="${PAD:-9437184}" ;;
  desc15x4) N="${N:-4}" TOOLS="${TOOLS:-0}" PAD="${PAD:-15728640}" ;;
  *) echo "CASE must be desc9 or desc15x4, not \"$CASE\"" >&2; exit 2 ;;
esac
n="${N:-4}"
tools="${TOOLS:-300000}"
pad="${PAD:-0}"
sandbox="${SANDBOX:-none}"
mcpvet="${MCPVET:-$out/mcpvet}"
if [ -z "${MCPVET:-}" ]; then
  OUT="$out/mcpvet" scripts/build.sh >/dev/null
fi
go build -o "$out/fixtures/" ./testdata/servers/hostile-listing
bin="$PWD/$out/fixtures/hostile-listing"
python3 - "$n" "$bin" "$tools" "$pad" > "$out/listing-config.json" <<'PY'
import json, sys
n, bin, tools, pad = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
print(json.dumps({"mcpServers": {f"s{i:02d}": {"command": bin, "args": ["-filler", tools, "-pad", pad, f"s{i:02d}"]} for i in range(n)}}))
PY
rm -f "$out/listing.db"*
/usr/bin/time -f "peak RSS %M KiB, %e s wall, %U s user, %S s sys" \
  "$mcpvet" scan --config "$out/listing-config.json" --db "$out/listing.db" \
  --sandbox "$sandbox" --concurrency "$n" --quiet ${EXTRA:-} || true
