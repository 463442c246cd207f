#!/usr/bin/env bash
# Probe cost against the bare go-sdk handshake + tools/list, in interleaved
# rounds: each round runs bare, the default probe, the probe with
# --sandbox none and, if BASE is given, an older build's default probe, one
# after the other, so load that drifts during the run hits every variant
# alike (plain hyperfine means swing by a third on a shared machine).
# Wall time from the shell; prints medians, minimums and ratios to bare.
#
#   bench/interleaved.sh                     # this checkout's build, 15 rounds
#   N=30 BASE=/path/to/old/mcpvet bench/interleaved.sh
#   NONE=0 bench/interleaved.sh              # without the --sandbox none variant
set -euo pipefail
cd "$(dirname "$0")/.."
out=bench/out
mkdir -p "$out"
cache="${CACHE:-$PWD/.cache/mcpvet}"
OUT="$out/mcpvet" scripts/build.sh >/dev/null
go build -o "$out/bare" ./bench/bare
new="$out/mcpvet"
target=npm:@modelcontextprotocol/server-everything@2026.1.26
db=$(mktemp -d)
trap 'rm -rf "$db"' EXIT
# The older build gets a cache folder of its own (a copy of the installed
# package): the sandbox saves one availability pass per backend, for the
# binary that ran the check, so two binaries sharing a cache folder would
# each find the other's pass and check again, a whole sandboxed launch, in
# every round (the figures before 2026-12-02 00:30 with BASE= include it).
basecache="$cache"
if [ -n "${BASE:-}" ]; then
  basecache="$db/basecache"
  mkdir -p "$basecache/npm"
  cp -a "$cache/npm/@modelcontextprotocol+server-everything@2026.1.26" "$cache/npm/.meta" "$basecache/npm/" 2>/dev/null || true
fi
# Warm the install cache and the sandbox's saved availability check.
"$new" probe --quiet --cache-dir "$cache" --db "$db/warm.db" "$target" >/dev/null || true
[ -n "${BASE:-}" ] && { "$BASE" probe --quiet --cache-dir "$basecache" --db "$db/warm2.db" "$target" >/dev/null || true; }
server=$(readlink -f "$cache/npm/@modelcontextprotocol+server-everything@2026.1.26/node_modules/.bin/mcp-server-everything")
echo "load before: $(uptime)"
ms() { local s e; s=$(date +%s%N); "$@" >/dev/null 2>&1 || true; e=$(date +%s%N); echo $(((e - s) / 1000000)); }
: >"$out/interleaved.txt"
for _ in $(seq "${N:-15}"); do
  echo "bare $(ms "$out/bare" -- node "$server")" >>"$out/interleaved.txt"
  echo "probe $(ms "$new" probe --quiet --cache-dir "$cache" --db "$db/p.db" "$target")" >>"$out/interleaved.txt"
  [ "${NONE:-1}" = 0 ] || echo "none $(ms "$new" probe --quiet --sandbox none --cache-dir "$cache" --db "$db/n.db" "$target")" >>"$out/interleaved.txt"
  [ -n "${BASE:-}" ] && echo "base $(ms "$BASE" probe --quiet --cache-dir "$basecache" --db "$db/b.db" "$target")" >>"$out/interleaved.txt"
done
echo "load after: $(uptime)"
python3 - "$out/interleaved.txt" <<'PY'
import statistics, sys
d = {}
for line in open(sys.argv[1]):
    k, v = line.split()
    d.setdefault(k, []).append(int(v))
mb, nb = statistics.median(d["bare"]), min(d["bare"])
for k in ["bare", "probe", "none", "base"]:
    if k in d:
        m = statistics.median(d[k])
        print(f"{k:6} median {m:6.0f} ms ({m / mb:.2f}x)  min {min(d[k]):5d} ms ({min(d[k]) / nb:.2f}x)  rounds {len(d[k])}")
# Each round's own ratio to that round's bare, median over the rounds:
# steadier than the ratio of medians when the load drifts.
for k in ["probe", "none", "base"]:
    if k in d:
        r = [v / b for v, b in zip(d[k], d["bare"])]
        print(f"{k:6} per-round ratio to bare: median {statistics.median(r):.2f}")
PY
