#!/usr/bin/env bash
# The shell steps of the mcpvet GitHub Action (action.yml at the repository
# root), kept here so the tests run them (cmd/mcpvet TestActionScript).
#
# It builds mcpvet from the action's checkout, probes the repository's
# server in the sandbox, writes SARIF located relative to the workspace and
# exits with mcpvet's exit code: 0 the gate passed, 1 findings not in the
# baseline or a score drop, 2 bad input, 3 the probe failed, 4 interrupted.
#
# Inputs come as INPUT_* variables (the action maps its inputs onto them):
#   INPUT_TARGET          URL, npm:NAME@VERSION, pypi:..., oci:... (or use INPUT_COMMAND)
#   INPUT_COMMAND         the server's command line, split like a shell would
#                         split words and quotes, without any expansion
#   INPUT_ARGS            extra mcpvet probe flags, split the same way
#   INPUT_BASELINE        baseline file in the workspace (gate when it exists)
#   INPUT_UPDATE_BASELINE "true" to rewrite the baseline instead of gating
#   INPUT_MAX_SCORE_DROP  points the score may fall below the baseline's
#   INPUT_SARIF           SARIF file to write, relative to the workspace
set -euo pipefail

src="${GITHUB_ACTION_PATH:?GITHUB_ACTION_PATH must name the mcpvet checkout}"
ws="${GITHUB_WORKSPACE:-$PWD}"
tmp="$(mktemp -d "${RUNNER_TEMP:-/tmp}/mcpvet-action.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT

# split NAME VALUE: NUL-separated words of VALUE into the array NAME, quotes
# and backslashes honoured, nothing expanded (no globs, no variables).
split() {
  local -n out="$1"
  out=()
  if [[ -z "${2//[[:space:]]/}" ]]; then
    return 0
  fi
  if ! printf '%s' "$2" | xargs printf '%s\0' >"$tmp/words" 2>"$tmp/err"; then
    echo "mcpvet-action: $3 \"$2\": $(head -n1 "$tmp/err"); balance the quote or quote the argument" >&2
    exit 2
  fi
  mapfile -d '' out <"$tmp/words"
}

split argv "${INPUT_COMMAND:-}" command
split extra "${INPUT_ARGS:-}" args

bin="$tmp/mcpvet"
(cd "$src" && go build -o "$bin" ./cmd/mcpvet)

flags=(probe --db "$tmp/mcpvet.db" --max-score-drop "${INPUT_MAX_SCORE_DROP:-5}")
if [[ -n "${INPUT_SARIF:-}" ]]; then
  flags+=(--sarif "$INPUT_SARIF" --sarif-root "$ws")
fi
baseline="${INPUT_BASELINE:-}"
if [[ -n "$baseline" ]]; then
  if [[ "${INPUT_UPDATE_BASELINE:-false}" == "true" ]]; then
    flags+=(--baseline "$baseline" --update-baseline)
  elif [[ -f "$ws/$baseline" || -f "$baseline" ]]; then
    flags+=(--baseline "$baseline")
  else
    echo "::notice::mcpvet: no baseline at $baseline; probing without the gate (run with update-baseline: true and commit the file to start one)"
  fi
fi
flags+=("${extra[@]}")
if [[ -n "${INPUT_TARGET:-}" ]]; then
  flags+=("$INPUT_TARGET")
elif ((${#argv[@]} > 0)); then
  flags+=(-- "${argv[@]}")
else
  echo "mcpvet-action: give the server as target (URL, npm:NAME@VERSION, ...) or command (its command line)" >&2
  exit 2
fi

cd "$ws"
set +e
"$bin" "${flags[@]}"
code=$?
set -e
if [[ -n "${GITHUB_OUTPUT:-}" ]]; then
  echo "exit-code=$code" >>"$GITHUB_OUTPUT"
fi
exit "$code"
