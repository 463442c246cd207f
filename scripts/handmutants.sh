#!/usr/bin/env bash
# handmutants.sh runs the hand mutants of scripts/mutants/: the mutations
# gremlins cannot make (switch cases, constants, slices, removed caps).
# Each line of scripts/mutants/<pkg>.tsv (the package path with / as _)
# is a mutant: file, the exact text to replace (it must occur once in the
# file), its replacement, and what it breaks, separated by tabs.
#
#   scripts/handmutants.sh                  # every list
#   scripts/handmutants.sh ./sandbox ./internal/canary   # these packages' lists
#   MATCH=StdinGrace scripts/handmutants.sh # the mutants whose line matches
#
# Each mutant is applied through a go build overlay (go test -overlay), so
# the tree is never edited and an interrupted run leaves nothing behind;
# the whole test suite of the mutated file's package runs against it
# (-short, as under gremlins, and no -run filter). A mutant is KILLED when
# the tests fail, LIVED when they pass; a mutant whose text is not found,
# or that does not compile, is STALE: the list no longer matches the code.
# The exit status is 1 when any mutant lived or is stale.
#
# The unmutated suite of each package runs first; only tests that pass
# there count as killing a mutant (a test the machine fails kills
# nothing). Results: $OUT/hand.tsv (status, seconds, file, replacement,
# the tests that failed), logs in $OUT/hand-logs/.
set -euo pipefail
cd "$(dirname "$0")/.."

OUT=${OUT:-bench/out/mutate}
NICE=${NICE:-19}
mkdir -p "$OUT/hand-logs"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

lists=()
if [ $# -eq 0 ]; then
	lists=(scripts/mutants/*.tsv)
else
	for p in "$@"; do
		p=${p#./}
		l="scripts/mutants/${p//\//_}.tsv"
		[ -e "$l" ] && lists+=("$l")
	done
fi

: >"$OUT/hand.tsv"
status=0
n=0
for list in "${lists[@]}"; do
	while IFS=$'\t' read -r file from to what; do
		case "$file" in '' | '#'*) continue ;; esac
		if [ -n "${MATCH:-}" ] && ! grep -qF -- "$MATCH" <<<"$file $from $to $what"; then
			continue
		fi
		n=$((n + 1))
		start=$SECONDS
		count=$(FROM=$from perl -0777 -ne '$c = () = /\Q$ENV{FROM}\E/g; print $c' "$file" 2>/dev/null || echo 0)
		if [ "$count" != 1 ]; then
			echo "STALE   $file: \"$from\" occurs $count times ($what)"
			printf 'STALE\t0\t%s\t%s\t%s\n' "$file" "$to" "text found $count times" >>"$OUT/hand.tsv"
			status=1
			continue
		fi
		mutated="$tmp/$n.go"
		FROM=$from TO=$to perl -0777 -pe 's/\Q$ENV{FROM}\E/$ENV{TO}/' "$file" >"$mutated"
		printf '{"Replace": {"%s": "%s"}}\n' "$PWD/$file" "$mutated" >"$tmp/overlay.json"
		pkg=$(dirname "$file")
		base="$OUT/hand-logs/baseline-${pkg//\//_}.failed"
		if [ ! -e "$base" ]; then
			# The unmutated suite first: a test that fails without any
			# mutant (a machine condition) kills nothing.
			nice -n "$NICE" go test -count=1 -short -vet=off "./$pkg" >"${base%.failed}.log" 2>&1 || true
			grep -E '^--- FAIL' "${base%.failed}.log" | awk '{print $3}' | sort -u >"$base" || true
		fi
		log="$OUT/hand-logs/$n.log"
		rc=0
		nice -n "$NICE" go test -count=1 -short -vet=off -overlay="$tmp/overlay.json" "./$pkg" >"$log" 2>&1 || rc=$?
		secs=$((SECONDS - start))
		failed=$(grep -E '^--- FAIL' "$log" | awk '{print $3}' | sort -u | comm -23 - "$base" | head -5 | paste -sd, - || true)
		if grep -qE '\[build failed\]|\[setup failed\]' "$log"; then
			st=STALE
			failed="does not compile: $(grep -m1 -E '\.go:[0-9]+' "$log" || true)"
			status=1
		elif [ -n "$failed" ]; then
			st=KILLED
		elif [ $rc -ne 0 ] && ! grep -qE '^--- FAIL' "$log" && grep -qE '^ok ' "${base%.failed}.log"; then
			# No test named, but the unmutated suite passed: the binary
			# panicked or timed out because of the mutant.
			st=KILLED
			failed="the test binary failed: $(grep -m1 -E '^panic|timed out' "$log" || echo "see $log")"
		elif [ $rc -ne 0 ] && ! grep -qE '^--- FAIL' "$log"; then
			# The unmutated suite failed too (a timeout on a loaded
			# machine): this run tells nothing.
			st=UNKNOWN
			failed="the suite fails without the mutant too: see ${base%.failed}.log"
			status=1
		else
			st=LIVED
			status=1
		fi
		printf '%-7s %4ss %s: %s -> %s (%s)%s\n' "$st" "$secs" "$file" "$from" "$to" "$what" "${failed:+ by $failed}"
		printf '%s\t%s\t%s\t%s\t%s\n' "$st" "$secs" "$file" "$to" "$failed" >>"$OUT/hand.tsv"
	done <"$list"
done
echo "hand mutants: $n run; $(grep -c '^KILLED' "$OUT/hand.tsv" || true) killed, $(grep -c '^LIVED' "$OUT/hand.tsv" || true) lived, $(grep -c '^STALE' "$OUT/hand.tsv" || true) stale, $(grep -c '^UNKNOWN' "$OUT/hand.tsv" || true) unknown (results in $OUT/hand.tsv)"
exit $status
