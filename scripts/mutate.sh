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
#   scripts/mutate.sh -table                   # rewrite docs/testing.md's per-file table from the ledger
#   scripts/mutate.sh -import DIR              # add the results of DIR/files/*.json (another clone's run) to the ledger
#
# Two runners judge the same mutants (gremlins v0.6.0's) against the same
# whole package suite: RUNNER=fast (default) is internal/mutantrun, which
# runs only the tests whose coverage reaches the mutant (per-test
# coverage, computed once per package and cached in $OUT/cover; see
# docs/testing.md for why that gives the same result); RUNNER=gremlins
# runs gremlins itself, every mutant against every test.
#
# Resumable: each finished file appends one row to the ledger,
# docs/mutation/files.tsv (in git: file, its blob hash, the commit, the
# counts, the wall time), and each mutant that lived one row to
# docs/mutation/lived.tsv. A rerun skips every file whose current content
# (blob hash) already has a row, so a long run can be cut into sessions
# and shared between clones; a file that changed since is measured again,
# FORCE=1 measures every file again. A shard that was interrupted wrote no
# row and runs again from its start. Logs and gremlins' JSON stay in
# $OUT/files/ (not in git).
#
# Environment: WORKERS (default 1: the machine is shared), FILE_TIMEOUT
# (default 60m per file; over it the file is reported as timed out and left
# to run again), OUT (default bench/out/mutate), NICE (default 19), LEDGER
# (default docs/mutation: the directory of files.tsv and lived.tsv; point
# it at a worktree to collect a clone's run there).
# gremlins is installed from the Go module proxy when missing.
set -euo pipefail
cd "$(dirname "$0")/.."

GREMLINS_VERSION=${GREMLINS_VERSION:-v0.6.0}
WORKERS=${WORKERS:-1}
FILE_TIMEOUT=${FILE_TIMEOUT:-60m}
OUT=${OUT:-bench/out/mutate}
NICE=${NICE:-19}
LEDGER=${LEDGER:-docs/mutation}
RUNNER=${RUNNER:-fast}
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

# record FILE JSON META appends FILE's result (gremlins' JSON, the meta of
# its shard) to the ledger: one row in files.tsv, one per lived mutant in
# lived.tsv.
record() {
	local f=$1 j=$2 m=$3 blob
	mkdir -p "$LEDGER"
	[ -e "$LEDGER/files.tsv" ] || printf 'file\tblob\tcommit\tkilled\tlived\tnot_covered\ttimed_out\tnot_viable\tseconds\tfinished\trunner\n' >"$LEDGER/files.tsv"
	[ -e "$LEDGER/lived.tsv" ] || printf 'file\tblob\tline\tcolumn\tmutator\n' >"$LEDGER/lived.tsv"
	blob=$(meta_blob "$f" "$m")
	jq -r --slurpfile m "$m" --arg blob "$blob" '
		[.files[]?.mutations[]?.status] as $s
		| [$m[0].file, $blob, ($m[0].commit // "-"),
		   ($s | map(select(. == "KILLED")) | length),
		   ($s | map(select(. == "LIVED")) | length),
		   ($s | map(select(. == "NOT COVERED")) | length),
		   ($s | map(select(. == "TIMED OUT")) | length),
		   ($s | map(select(. == "NOT VIABLE")) | length),
		   $m[0].seconds, ($m[0].finished // "-"), ($m[0].runner // "gremlins")] | @tsv' "$j" >>"$LEDGER/files.tsv"
	jq -r --arg f "$f" --arg blob "$blob" '
		.files[]?.mutations[]? | select(.status == "LIVED")
		| [$f, $blob, .line, .column, .type] | @tsv' "$j" >>"$LEDGER/lived.tsv"
}

# meta_blob FILE META: the blob hash of the content FILE was measured at:
# the meta's, else FILE at the meta's commit, else FILE as it is now.
meta_blob() {
	local b c
	b=$(jq -r '.blob // empty' "$2")
	c=$(jq -r '.commit // empty' "$2")
	[ -n "$b" ] || [ -z "$c" ] || b=$(git rev-parse -q --verify "$c:$1" 2>/dev/null || true)
	[ -n "$b" ] || b=$(git hash-object "$1")
	echo "$b"
}

# done_before FILE: the ledger has a row for FILE's current content.
done_before() {
	[ -e "$LEDGER/files.tsv" ] || return 1
	awk -F'\t' -v f="$1" -v b="$(git hash-object "$1")" '$1 == f && $2 == b { found = 1 } END { exit !found }' "$LEDGER/files.tsv"
}

# every_file lists every non-test file of the seven packages.
every_file() {
	local p f
	for p in "${ALL_PKGS[@]}"; do
		for f in "${p#./}"/*.go; do
			case "$f" in *_test.go) continue ;; esac
			echo "$f"
		done
	done
}

# table prints the per-file table of docs/testing.md: every file of the
# seven packages, with its newest ledger row for its current content
# ("not yet measured" without one; a row for an older content is given
# with a note), then one row per package over the files measured.
table() {
	local f b
	for f in $(every_file); do
		printf '%s\t%s\n' "$f" "$(git hash-object "$f")"
	done | awk -F'\t' -v ledger="$LEDGER/files.tsv" '
		function eff(k, l) { return k + l > 0 ? sprintf("%.2f%%", 100 * k / (k + l)) : "-" }
		BEGIN {
			while ((getline line < ledger) > 0) {
				split(line, c, "\t")
				if (c[1] == "file") continue
				key = c[1] SUBSEP c[2]
				row[key] = line; anyrow[c[1]] = line
			}
			print "| File | Killed | Lived | Not covered | Timed out | Efficacy | Wall time | Main at (runner) |"
			print "|---|---|---|---|---|---|---|---|"
		}
		{
			f = $1; p = f; sub(/\/[^\/]*$/, "", p)
			if (!(p in F)) order[++n] = p
			F[p]++
			if ((f SUBSEP $2) in row) {
				split(row[f SUBSEP $2], c, "\t")
				mark = ""
				if (c[4] + c[5] >= 10 && 100 * c[4] / (c[4] + c[5]) < 75) mark = " (below 75%)"
				runner = (c[11] != "" ? c[11] : "gremlins")
				printf "| %s | %d | %d | %d | %d | %s%s | %d s | %s (%s) |\n", f, c[4], c[5], c[6], c[7], eff(c[4], c[5]), mark, c[9], c[3], runner
				M[p]++; K[p] += c[4]; L[p] += c[5]; N[p] += c[6]; T[p] += c[7]; S[p] += c[9]
			} else if (f in anyrow) {
				split(anyrow[f], c, "\t")
				printf "| %s | not yet measured (changed since %s, where it was %s) | | | | | | |\n", f, c[3], eff(c[4], c[5])
			} else {
				printf "| %s | not yet measured | | | | | | |\n", f
			}
		}
		END {
			for (i = 1; i <= n; i++) {
				p = order[i]
				if (M[p] == F[p]) what = "all " F[p] " files"
				else what = (M[p] + 0) " of " F[p] " files; not a package figure"
				printf "| **%s** (%s) | %d | %d | %d | %d | **%s** | %d s | |\n", p, what, K[p], L[p], N[p], T[p], eff(K[p], L[p]), S[p]
			}
		}'
}

case "${1:-}" in
-summary)
	table
	exit 0
	;;
-table)
	# Rewrite the lines between the markers of docs/testing.md.
	t=$(mktemp)
	table >"$t"
	awk -v t="$t" '
		/<!-- per-file: begin -->/ { print; while ((getline l < t) > 0) print l; skip = 1; next }
		/<!-- per-file: end -->/ { skip = 0 }
		!skip' docs/testing.md >"$t.md"
	mv "$t.md" docs/testing.md
	rm -f "$t"
	exit 0
	;;
-import)
	# Another clone's results (its $OUT): each file whose JSON is there and
	# that has no row for the same content and commit yet.
	for j in "$2"/files/*.json; do
		m=${j%.json}.meta
		[ -e "$m" ] || continue
		f=$(jq -r .file "$m")
		b=$(meta_blob "$f" "$m")
		c=$(jq -r '.commit // "-"' "$m")
		if [ -e "$LEDGER/files.tsv" ] && awk -F'\t' -v f="$f" -v b="$b" -v c="$c" '$1 == f && $2 == b && $3 == c { found = 1 } END { exit !found }' "$LEDGER/files.tsv"; then
			continue
		fi
		record "$f" "$j" "$m"
		echo "imported $f"
	done
	exit 0
	;;
esac

G=$(go env GOPATH)/bin/gremlins
case "$RUNNER" in
fast)
	mkdir -p "$OUT"
	G=$OUT/mutantrun
	GOFLAGS= go build -o "$G" ./internal/mutantrun
	;;
gremlins)
	if [ ! -x "$G" ]; then
		GOFLAGS= go install "github.com/go-gremlins/gremlins/cmd/gremlins@${GREMLINS_VERSION}"
	fi
	;;
*)
	echo "RUNNER=$RUNNER: want fast or gremlins" >&2
	exit 2
	;;
esac

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
	if [ -z "${DRY:-}" ] && [ -z "${FORCE:-}" ] && done_before "$f"; then
		echo "== $f: measured before at this content ($LEDGER/files.tsv; FORCE=1 runs it again)" >&2
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
	start=$SECONDS
	rc=0
	if [ "$RUNNER" = fast ]; then
		# The same mutants, each against the tests of $pkg that cover it
		# (-short, -failfast; internal/mutantrun).
		echo "== $f (tests: those of $pkg covering each mutant; internal/mutantrun)" >&2
		if [ -n "${DRY:-}" ]; then
			"$G" -list "$f"
			return 0
		fi
		rm -f "$OUT/files/$k.tsv"
		timeout "$FILE_TIMEOUT" nice -n "$NICE" "$G" -cache "$OUT/cover" -json "$OUT/files/$k.json.tmp" -tsv "$OUT/files/$k.tsv" "$f" >"$OUT/files/$k.log" 2>&1 || rc=$?
	else
		echo "== $f (tests: all of $pkg; GOFLAGS=$base_goflags)" >&2
		GOFLAGS=$base_goflags timeout "$FILE_TIMEOUT" nice -n "$NICE" "$G" "${args[@]}" "$pkg" >"$OUT/files/$k.log" 2>&1 || rc=$?
	fi
	if [ $rc -ne 0 ]; then
		[ $rc -eq 124 ] && echo "$f: timed out after $FILE_TIMEOUT (partial log in $OUT/files/$k.log)" >&2
		status=1
		return 0
	fi
	echo "$f: wall time $((SECONDS - start)) s"
	grep -E '^(Killed|Runnable|Timed out|Test efficacy|Mutator coverage)' "$OUT/files/$k.log" | sed "s|^|$f: |" || true
	grep -E '^[^ ]+: killed [0-9]+, lived' "$OUT/files/$k.log" || true
	# Tests that skipped themselves without a mutant (a missing tool or
	# data set, e.g. ../shared/registry in a clone) kill nothing: say so.
	grep -E 'tests skipped without a mutant' "$OUT/files/$k.log" | sed "s|^|$f: |" >&2 || true
	if [ -z "${DRY:-}" ]; then
		grep -E '^ +LIVED |^ *[0-9]+/[0-9]+ LIVED ' "$OUT/files/$k.log" | sed "s|^ *|$f: |" || true
		printf '{"file": "%s", "blob": "%s", "seconds": %d, "commit": "%s", "finished": "%s", "runner": "%s"}\n' "$f" "$(git hash-object "$f")" $((SECONDS - start)) "$(git rev-parse --short HEAD 2>/dev/null || echo unknown)" "$(date -u +%FT%TZ)" "$RUNNER" >"$OUT/files/$k.meta"
		if [ -e "$OUT/files/$k.json.tmp" ]; then
			mv "$OUT/files/$k.json.tmp" "$OUT/files/$k.json"
		else
			# gremlins writes no report for a file without mutants
			# (doc.go, declarations only).
			echo '{"files": []}' >"$OUT/files/$k.json"
		fi
		record "$f" "$OUT/files/$k.json" "$OUT/files/$k.meta"
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
