#!/usr/bin/env bash
# mutate.sh runs gremlins (mutation testing) one package at a time, each
# with its own test run and time bound, and prints each package's efficacy.
#
#   scripts/mutate.sh                      # the packages that decide results, each in its scope
#   scripts/mutate.sh ./scoring            # one package, in its scope
#   ONLY='verdict|policy' scripts/mutate.sh ./scoring   # only files matching
#   ONLY=. scripts/mutate.sh ./scoring     # every file of the package
#   DRY=1 scripts/mutate.sh                # count mutants, run nothing
#
# Each package has a default scope (scope below): the files that decide
# statuses and verdicts, and the tests that exercise them, so that the whole
# run fits in 30 minutes on 2 cores. ONLY and RUN override it.
#
# Environment: WORKERS (default 1: the machine is shared), PKG_TIMEOUT
# (default 25m per package; a package over it is reported as timed out),
# ONLY (an extended regexp of file base names, without .go, to mutate; the
# others are excluded), RUN (a go test -run regexp: the tests run against
# each mutant), OUT (directory for the JSON results, default
# bench/out/mutate). gremlins is installed from the Go module proxy when
# missing.
set -euo pipefail
cd "$(dirname "$0")/.."

GREMLINS_VERSION=${GREMLINS_VERSION:-v0.6.0}
WORKERS=${WORKERS:-1}
PKG_TIMEOUT=${PKG_TIMEOUT:-25m}
OUT=${OUT:-bench/out/mutate}

# scope prints a package's default file regexp and test regexp.
scope() {
	case "$1" in
	./scoring) echo 'verdict|policy|grade|credentials|rubric|findings|server' '' ;;
	./probe) echo 'classify|check_uritemplate|check_annotations|check_declared|check_tool' \
		'TestCredentialWording|TestRemoteHandshakeStatus|TestClassifyFailure|TestLastLine|TestHTTPStatusIn|TestValidateURITemplate|TestCheckAnnotations|TestAnnotationsNotInVersion|TestCheckDeclared|TestCheckToolText|TestIdentWords' ;;
	./sandbox) echo 'stdio|env|expose' \
		'TestLimitBoundaries|TestLimits$|TestReadEOFOnExit|TestReadUnblocksOnClose|TestMCPSession|TestConcurrentWrites|TestStderrTail|TestEnvironment|TestCanariesUniquePerRun|TestBuildEnv|TestLookEnv|TestAddNoise|TestPlanExposure|TestScriptArg|TestHostArgPath|TestInstallPrefix|TestCheckExpose|TestExposeRefusesCredentials|TestUnexposedHint' ;;
	./scan) echo 'scan|select|target' 'TestRunInterruptAndResume|TestRunWithoutStore|TestRunDefaultsAndGivenPlans|TestRunFinishError|TestRunOne|TestRunStoresRubricVersion|TestSelect|TestPlanSetDigest|TestParseTarget|TestFetcherHint' ;;
	./results) echo 'merge|merge_check' 'TestMerge|TestWithMergeRecord' ;;
	./results/report) echo 'csv' 'TestCSVCell' ;;
	*) echo '.' '' ;;
	esac
}

# -count=1: cached test results would make the coverage run (which sets the
# per-mutant timeout) look instant and every mutant time out. -short skips
# the slow tests (real installs, whole-binary runs) that no mutant of the
# scoped files needs; -vet=off saves go vet's pass over each mutant (a
# third of its time).
base_goflags="${GOFLAGS:+$GOFLAGS }-count=1 -short -vet=off"

G=$(go env GOPATH)/bin/gremlins
if [ ! -x "$G" ]; then
	go install "github.com/go-gremlins/gremlins/cmd/gremlins@${GREMLINS_VERSION}"
fi

pkgs=("$@")
if [ ${#pkgs[@]} -eq 0 ]; then
	# The packages that decide verdicts and statuses.
	pkgs=(./scoring ./probe ./sandbox ./scan ./results ./results/report)
fi
mkdir -p "$OUT"

status=0
for pkg in "${pkgs[@]}"; do
	# Not --test-cpu: gremlins v0.6.0 passes it to go test as the single
	# argument "-cpu 1", which go test rejects (exit 1), so every mutant
	# counts as killed.
	# -E /: gremlins walks the subdirectories too (./scan has ./scan/source),
	# whose files are other packages, tested by their own tests.
	args=(unleash --workers "$WORKERS" --timeout-coefficient 20 -E /)
	read -r only run <<<"$(scope "$pkg")"
	only=${ONLY:-$only}
	run=${RUN:-$run}
	export GOFLAGS="$base_goflags${run:+ -run=$run}"
	if [ "$only" != . ]; then
		for f in "$pkg"/*.go; do
			b=$(basename "$f")
			case "$b" in *_test.go) continue ;; esac
			if ! grep -Eq "^(${only})\.go$" <<<"$b"; then
				args+=(-E "${b//./\\.}\$")
			fi
		done
	fi
	name=$(basename "$pkg")
	if [ -n "${DRY:-}" ]; then
		args+=(--dry-run)
	else
		args+=(-o "$OUT/$name.json")
	fi
	echo "== $pkg (files: $only; tests: ${run:-all}; GOFLAGS=$GOFLAGS)" >&2
	log="$OUT/$name.log"
	start=$SECONDS
	if timeout "$PKG_TIMEOUT" nice "$G" "${args[@]}" "$pkg" >"$log" 2>&1; then
		:
	else
		rc=$?
		[ $rc -eq 124 ] && echo "$pkg: timed out after $PKG_TIMEOUT (partial log in $log)" >&2
		status=1
	fi
	echo "$name: wall time $((SECONDS - start)) s"
	grep -E '^(Killed|Runnable|Timed out|Test efficacy|Mutator coverage)' "$log" | sed "s|^|$name: |" || true
	if [ -z "${DRY:-}" ]; then
		grep -E '^ +LIVED ' "$log" | sed "s|^ *|$name: |" || true
	fi
done
exit $status
