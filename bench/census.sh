#!/usr/bin/env bash
# Census speed, side by side with an older mcpvet (issue: census).
#
# Scans the same sample of registry plans with the old binary and with this
# tree's, first with empty caches (cold: no installed packages, no npm
# cache), then again with the caches each filled (warm), one run at a time,
# and prints wall time and peak RSS of each run and the new/old ratios.
#
#   OLD=/tmp/mcpvet-old bench/census.sh                 # 200 plans, --sample 200 --seed 1
#   N=50 CONCURRENCY=2 OLD=/tmp/mcpvet-old bench/census.sh
#   ONLY_NEW=1 OLD=/tmp/mcpvet-old bench/census.sh    # rerun this tree's side, keep the old runs in BENCH_OUT
#
# "peak RSS" is /usr/bin/time's: the largest of mcpvet and the installers
# it runs (npm, node); "mcpvet" is mcpvet's own high-water mark (VmHWM).
#
# Build the old binary from a commit first, for example:
#   git archive a368394 | tar -x -C /tmp/old && (cd /tmp/old && go build -o /tmp/mcpvet-old ./cmd/mcpvet)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
out="${BENCH_OUT:-/tmp/mcpvet-bench}"
snapshot="${SNAPSHOT:-$root/../shared/registry/servers.json}"
n="${N:-200}"
seed="${SEED:-1}"
conc="${CONCURRENCY:-4}"
old="${OLD:?set OLD to the old mcpvet binary}"
mkdir -p "$out"
OUT="$out/mcpvet-new" scripts/build.sh >/dev/null
cp "$old" "$out/mcpvet-old"
if [ -n "${ONLY_NEW:-}" ]; then
  rm -rf "$out/cache-new" "$out"/new-*
else
  rm -rf "$out/cache-old" "$out/cache-new" "$out"/*.db* "$out"/*.time "$out"/*.hwm
fi

# run NAME BINARY CACHE: one scan of the sample, timed.
run() {
  local name=$1 bin=$2 cache=$3
  mkdir -p "$cache/npm" "$cache/pip"
  npm_config_cache="$cache/npm" PIP_CACHE_DIR="$cache/pip" \
    /usr/bin/time -v -o "$out/$name.time" \
    "$bin" scan --from "$snapshot" --sample "$n" --seed "$seed" --concurrency "$conc" \
    --cache-dir "$cache/mcpvet" --db "$out/$name.db" --quiet > "$out/$name.summary" 2> "$out/$name.stderr" &
  local tpid=$! mpid=""
  while kill -0 "$tpid" 2>/dev/null; do
    [ -n "$mpid" ] || mpid=$(pgrep -P "$tpid" | head -1)
    [ -n "$mpid" ] && awk '/VmHWM/ {print $2}' "/proc/$mpid/status" > "$out/$name.hwm.tmp" 2>/dev/null && [ -s "$out/$name.hwm.tmp" ] && mv "$out/$name.hwm.tmp" "$out/$name.hwm"
    sleep 1
  done
  wait "$tpid" || true
  local wall rss hwm
  wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {print $2}' "$out/$name.time")
  rss=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$out/$name.time")
  hwm=$(cat "$out/$name.hwm" 2>/dev/null || echo 0)
  printf '%-10s wall %-10s peak RSS %6d MiB (mcpvet %4d MiB)  %s\n' "$name" "$wall" $((rss / 1024)) $((hwm / 1024)) "$(head -1 "$out/$name.summary")"
}

seconds() { # h:mm:ss or m:ss.ss -> seconds
  awk -F: '{ if (NF == 3) print $1*3600 + $2*60 + $3; else print $1*60 + $2 }' <<< "$1"
}

[ -n "${ONLY_NEW:-}" ] || run old-cold "$out/mcpvet-old" "$out/cache-old"
run new-cold "$out/mcpvet-new" "$out/cache-new"
[ -n "${ONLY_NEW:-}" ] || run old-warm "$out/mcpvet-old" "$out/cache-old"
run new-warm "$out/mcpvet-new" "$out/cache-new"

for phase in cold warm; do
  o=$(seconds "$(awk -F': ' '/Elapsed \(wall clock\)/ {print $2}' "$out/old-$phase.time")")
  w=$(seconds "$(awk -F': ' '/Elapsed \(wall clock\)/ {print $2}' "$out/new-$phase.time")")
  awk -v p="$phase" -v o="$o" -v w="$w" 'BEGIN { printf "%s: new %.1f s / old %.1f s = %.3f (1/%.1f)\n", p, w, o, w / o, o / w }'
done
# The same plans on both sides.
for name in old-cold new-cold; do
  sqlite3 "$out/$name.db" "SELECT key FROM targets ORDER BY key" > "$out/$name.keys" 2>/dev/null || true
done
if cmp -s "$out/old-cold.keys" "$out/new-cold.keys"; then
  echo "same $(wc -l < "$out/new-cold.keys") plans on both sides"
else
  echo "WARNING: the two binaries scanned different plans (see $out/*.keys)"
fi
