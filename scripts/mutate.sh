#!/usr/bin/env bash
# mutate.sh runs gremlins (mutation testing) one package at a time, each
# with its own test run and time bound, and prints each package's efficacy.
#
#   scripts/mutate.sh                      # the packages that decide results
#   scripts/mutate.sh ./scoring            # one package
#   ONLY='verdict|policy' scripts/mutate.sh ./scoring   # only files matching
#   DRY=1 scripts/mutate.sh                # count mutants, run nothing
#
# Environment: WORKERS (default 1: the machine is shared), PKG_TIMEOUT
# (default 25m per package; a package over it is reported as timed out),
# ONLY (an extended regexp of file base names to mutate; the others are
# excluded), OUT (directory for the JSON results, default bench/out/mutate).
# gremlins is installed from the Go module proxy when missing.
set -euo pipefail
cd "$(dirname "$0")/.."

GREMLINS_VERSION=${GREMLINS_VERSION:-v0.6.0}
WORKERS=${WORKERS:-1}
PKG_TIMEOUT=${PKG_TIMEOUT:-25m}
OUT=${OUT:-bench/out/mutate}
ONLY=${ONLY:-}

# Cached test results would make the coverage run (which sets the
# per-mutant timeout) look instant and every mutant time out.
export GOFLAGS="${GOFLAGS:+$GOFLAGS }-count=1"

G=$(go env GOPATH)/bin/gremlins
if [ ! -x "$G" ]; then
	go install "github.com/go-gremlins/gremlins/cmd/gremlins@${GREMLINS_VERSION}"
fi

pkgs=("$@")
if [ ${#pkgs[@]} -eq 0 ]; then
	# The packages that decide verdicts and statuses.
	pkgs=(./scoring ./probe ./sandbox ./scan ./results)
fi
mkdir -p "$OUT"

status=0
for pkg in "${pkgs[@]}"; do
	args=(unleash --workers "$WORKERS" --test-cpu 1 --timeout-coefficient 20)
	if [ -n "$ONLY" ]; then
		for f in "$pkg"/*.go; do
			b=$(basename "$f")
			case "$b" in *_test.go) continue ;; esac
			if ! grep -Eq "^(${ONLY})\.go$" <<<"$b"; then
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
	echo "== $pkg (${ONLY:-all files})" >&2
	log="$OUT/$name.log"
	if timeout "$PKG_TIMEOUT" nice "$G" "${args[@]}" "$pkg" >"$log" 2>&1; then
		:
	else
		rc=$?
		[ $rc -eq 124 ] && echo "$pkg: timed out after $PKG_TIMEOUT (partial log in $log)" >&2
		status=1
	fi
	grep -E '^(Killed|Runnable|Timed out|Test efficacy|Mutator coverage)' "$log" | sed "s|^|$name: |" || true
	if [ -z "${DRY:-}" ]; then
		grep -E '^ +LIVED ' "$log" | sed "s|^ *|$name: |" || true
	fi
done
exit $status
