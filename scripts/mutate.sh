#!/usr/bin/env bash
# mutate.sh measures how many bugs the tests catch: gremlins (mutation
# testing) over every non-test file of the packages that decide results,
# one file per shard, each mutant run against its package's whole test
# suite (no -run filter), then the hand mutants of scripts/mutants/ that
# gremlins cannot make (switch cases, constants, slices, deleted branches).
#
#   scripts/mutate.sh                          # every file of the seven packages, then the hand mutants
#   scripts/mutate.sh ./scoring ./results      # every file of these packages
#   FILES='scoring/verdict.go probe/classify.go' scripts/mutate.sh   # these files only
#   HAND=only scripts/mutate.sh                # only the hand mutants (HAND=0: none)
#   DRY=1 scripts/mutate.sh ./scoring          # count the mutants, run nothing
#   scripts/mutate.sh -summary                 # the per-file table of what has run so far
#
# Resumable: each file's result is kept in $OUT/files/<pkg>__<file>.json
# (with its log beside it) and a rerun skips the files that have one, so a
# long run can be cut into sessions; FORCE=1 runs them again. A shard that
# was interrupted left no JSON and runs again from its start.
#
# Environment: WORKERS (default 1: the machine is shared), FILE_TIMEOUT
# (default 60m per file; over it the file is reported as timed out and left
# to run again), OUT (default bench/out/mutate), NICE (default 19).
# gremlins is installed from the Go module proxy when missing.
set -euo pipefail
cd "$(dirname "$0")/.."

GREMLINS_VERSION=${GREMLINS_VERSION:-v0.6.0}
WORKERS=${WORKERS:-1}
FILE_TIMEOUT=${FILE_TIMEOUT:-60m}
OUT=${OUT:-bench/out/mutate}
NICE=${NICE:-19}
ALL_PKGS=(./results/report ./scoring ./results ./scan ./scan/source ./sandbox ./probe)

# -count=1: cached test results would make the coverage run (which sets the
# per-mutant timeout) look instant and every mutant time out. -short skips
# the tests that install real packages or launch whole binaries (they also
# skip under the README's quick run); -vet=off saves go vet's pass over
# each mutant (a third of its time). No -run: the whole suite.
base_goflags="${GOFLAGS:+$GOFLAGS }-count=1 -short -vet=off"

# key names a file's result: scan/source/plan.go -> scan_source__plan.
key() {
	local d b
	d=$(dirname "$1")
	b=$(basename "$1" .go)
	echo "${d//\//_}__$b"
}

summary() {
	# One row per file that has a result, then one per package: killed,
	# lived, not covered, timed out, not viable, efficacy (killed / (killed
	# + lived)) and the shard's wall time.
	local j
	for j in "$OUT"/files/*.json; do
		[ -e "$j" ] || continue
		jq -r --slurpfile m "${j%.json}.meta" '
			[.files[]?.mutations[]?.status] as $s
			| [$m[0].file,
			   ($s | map(select(. == "KILLED")) | length),
			   ($s | map(select(. == "LIVED")) | length),
			   ($s | map(select(. == "NOT COVERED")) | length),
			   ($s | map(select(. == "TIMED OUT")) | length),
			   ($s | map(select(. == "NOT VIABLE")) | length),
			   $m[0].seconds, ($m[0].commit // "-")] | @tsv' "$j"
	done | awk -F'\t' '
		function eff(k, l) { return k + l > 0 ? sprintf("%.2f%%", 100 * k / (k + l)) : "-" }
		BEGIN { printf "%-44s %6s %5s %7s %8s %7s %9s %6s %s\n", "file", "killed", "lived", "notcov", "timedout", "nviable", "efficacy", "secs", "commit" }
		{
			printf "%-44s %6d %5d %7d %8d %7d %9s %6d %s\n", $1, $2, $3, $4, $5, $6, eff($2, $3), $7, $8
			p = $1; sub(/\/[^\/]*$/, "", p)
			if (!(p in K)) order[++n] = p
			K[p] += $2; L[p] += $3; N[p] += $4; T[p] += $5; V[p] += $6; S[p] += $7; F[p]++
		}
		END {
			for (i = 1; i <= n; i++) {
				p = order[i]
				printf "%-44s %6d %5d %7d %8d %7d %9s %6d\n", p " (" F[p] " files)", K[p], L[p], N[p], T[p], V[p], eff(K[p], L[p]), S[p]
			}
		}'
}

if [ "${1:-}" = -summary ]; then
	summary
	exit 0
fi

G=$(go env GOPATH)/bin/gremlins
if [ ! -x "$G" ]; then
	GOFLAGS= go install "github.com/go-gremlins/gremlins/cmd/gremlins@${GREMLINS_VERSION}"
fi

# The files to mutate: FILES, or every non-test file of the packages.
files=()
if [ -n "${FILES:-}" ]; then
	read -r -a files <<<"$FILES"
else
	pkgs=("$@")
	[ ${#pkgs[@]} -eq 0 ] && pkgs=("${ALL_PKGS[@]}")
	for p in "${pkgs[@]}"; do
		p=${p#./}
		for f in "$p"/*.go; do
			case "$f" in *_test.go) continue ;; esac
			files+=("$f")
		done
	done
fi

mkdir -p "$OUT/files"
status=0

run_file() {
	local f=$1 pkg k b args start rc
	pkg=./$(dirname "$f")
	b=$(basename "$f")
	k=$(key "$f")
	if [ -z "${DRY:-}" ] && [ -z "${FORCE:-}" ] && [ -e "$OUT/files/$k.json" ]; then
		echo "== $f: done before (FORCE=1 runs it again)" >&2
		return 0
	fi
	# Not --test-cpu: gremlins v0.6.0 passes it to go test as the single
	# argument "-cpu 1", which go test rejects (exit 1), so every mutant
	# counts as killed. -E /: gremlins walks the subdirectories too
	# (./scan has ./scan/source), other packages with their own tests.
	args=(unleash --workers "$WORKERS" --timeout-coefficient 20 -E /)
	for o in "$(dirname "$f")"/*.go; do
		[ "$o" = "$f" ] && continue
		args+=(-E "$(basename "$o" | sed 's/\./\\./g')\$")
	done
	if [ -n "${DRY:-}" ]; then
		args+=(--dry-run)
	else
		args+=(-o "$OUT/files/$k.json.tmp")
	fi
	echo "== $f (tests: all of $pkg; GOFLAGS=$base_goflags)" >&2
	start=$SECONDS
	rc=0
	GOFLAGS=$base_goflags timeout "$FILE_TIMEOUT" nice -n "$NICE" "$G" "${args[@]}" "$pkg" >"$OUT/files/$k.log" 2>&1 || rc=$?
	if [ $rc -ne 0 ]; then
		[ $rc -eq 124 ] && echo "$f: timed out after $FILE_TIMEOUT (partial log in $OUT/files/$k.log)" >&2
		status=1
		return 0
	fi
	echo "$f: wall time $((SECONDS - start)) s"
	grep -E '^(Killed|Runnable|Timed out|Test efficacy|Mutator coverage)' "$OUT/files/$k.log" | sed "s|^|$f: |" || true
	if [ -z "${DRY:-}" ]; then
		grep -E '^ +LIVED ' "$OUT/files/$k.log" | sed "s|^ *|$f: |" || true
		printf '{"file": "%s", "seconds": %d, "commit": "%s"}\n' "$f" $((SECONDS - start)) "$(git rev-parse --short HEAD 2>/dev/null || echo unknown)" >"$OUT/files/$k.meta"
		if [ -e "$OUT/files/$k.json.tmp" ]; then
			mv "$OUT/files/$k.json.tmp" "$OUT/files/$k.json"
		else
			# gremlins writes no report for a file without mutants
			# (doc.go, declarations only).
			echo '{"files": []}' >"$OUT/files/$k.json"
		fi
	fi
}

if [ "${HAND:-1}" != only ]; then
	for f in "${files[@]}"; do
		run_file "$f"
	done
fi

# The hand mutants: scripts/mutants/<pkg>.tsv, one a line: file, the exact
# text to replace (it must occur once in the file), its replacement, and
# what the mutant breaks, separated by tabs. Each is applied through a
# go build overlay (the tree is never edited), the package's whole test
# suite runs against it, and it must fail: a mutant that survives or does
# not compile fails make mutate.
if [ "${HAND:-1}" != 0 ] && [ -z "${DRY:-}" ] && [ -z "${FILES:-}" ]; then
	scripts/handmutants.sh "$@" || status=1
fi
exit $status
