#!/usr/bin/env bash
# Run shiplint once (as JSON), then render from that one report: the log report,
# the annotations, the SARIF file for code scanning and the step summary; publish
# the verdict and the counts as step outputs. Exit 0 passed, 1 findings at the
# failing severity, 2 shiplint could not check (bad manifest, input, usage).
#
# Env (set from the action's inputs): INPUT_MANIFEST, INPUT_ROOT, INPUT_SOURCES,
# INPUT_ARTIFACTS, INPUT_CMAKE, INPUT_CMAKE_VERSIONS, INPUT_FORMAT, INPUT_FAIL_ON,
# INPUT_ANNOTATIONS, INPUT_SARIF_FILE, INPUT_ARGS, INPUT_CACHE_ENABLED, INPUT_CACHE_HOME,
# SHIPLINT_CACHE_SECRET; GITHUB_OUTPUT, GITHUB_STEP_SUMMARY, RUNNER_TEMP.
set -euo pipefail

venv="${RUNNER_TEMP}/shiplint-venv"
if [ -x "$venv/bin/python" ]; then bin="$venv/bin"; else bin="$venv/Scripts"; fi
work="$(mktemp -d "${RUNNER_TEMP}/shiplint-run.XXXXXX")"
json="$work/report.json"
root="${INPUT_ROOT:-.}"
sarif="${INPUT_SARIF_FILE:-}"
[ -n "$sarif" ] || sarif="${RUNNER_TEMP}/shiplint.sarif"
format="${INPUT_FORMAT:-text}"

# Workflow-command data escaping (% CR LF), so no value can start a command line.
escape_data() {  # text
  local text="${1//'%'/%25}"
  text="${text//$'\r'/%0D}"
  printf '%s' "${text//$'\n'/%0A}"
}

# Reports a failure to check (not a finding) everywhere a user looks, then stops.
# shiplint's located errors (a manifest or config problem: file:line:col) become
# annotations on that file; anything else, one annotation with the whole message.
cannot_check() {  # message
  local message="$1"
  if [ -x "$bin/python" ] && [ -n "${2:-}" ]; then
    "$bin/python" -m shiplint.report.stopped "$2" --root "$root" --title "shiplint could not check" \
      || echo "::error title=shiplint could not check::$(escape_data "$message")"
  else
    echo "::error title=shiplint could not check::$(escape_data "$message")"
  fi
  {
    echo "## :warning: shiplint could not check"
    echo
    echo '```text'
    printf '%s\n' "$message"
    echo '```'
  } >> "$GITHUB_STEP_SUMMARY"
  {
    echo "verdict=error"
    echo "errors=0"
    echo "warnings=0"
    echo "infos=0"
    echo "waived=0"
    echo "failing=0"
    echo "sarif-file="
    echo "report-json="
  } >> "$GITHUB_OUTPUT"
  exit 2
}

# The user cache: the one restored for this run (cache.sh; its entries verified with
# SHIPLINT_CACHE_SECRET), else an empty one of this run's and no secret.
if [ "${INPUT_CACHE_ENABLED:-false}" = true ] && [ -n "${INPUT_CACHE_HOME:-}" ]; then
  export XDG_CACHE_HOME="$INPUT_CACHE_HOME"
else
  export XDG_CACHE_HOME="$work/cache"
  unset SHIPLINT_CACHE_SECRET
fi

args=(check --format json --output "$json" --root "$root")
[ -z "${INPUT_MANIFEST:-}" ] || args+=(--manifest "$INPUT_MANIFEST")
case "${INPUT_SOURCES:-true}" in
  true) ;;
  false) args+=(--no-sources) ;;
  *) cannot_check "input sources: expected true or false, got '${INPUT_SOURCES}'" ;;
esac
# Unset: the project's [tool.shiplint] fail-on decides (default error), as on the CLI.
case "${INPUT_FAIL_ON:-}" in
  "") ;;
  error|warning|info|none) args+=(--fail-on "$INPUT_FAIL_ON") ;;
  *) cannot_check "input fail-on: expected error, warning, info or none, got '${INPUT_FAIL_ON}'" ;;
esac
case "$format" in
  text|json|sarif|github|markdown|mermaid) ;;
  *) cannot_check "input format: expected text, json, sarif, github, markdown or mermaid, got '${format}'" ;;
esac

# CMake binaries: given paths, then the releases install.sh fetched.
while IFS= read -r line; do
  [ -z "$line" ] || args+=(--cmake "$line")
done <<< "${INPUT_CMAKE:-}"
for version in ${INPUT_CMAKE_VERSIONS:-}; do
  args+=(--cmake "${RUNNER_TEMP}/shiplint-cmake-${version}/cmake/data/bin/cmake")
done

# Extra command-line options (--select, --ignore, ...), split on whitespace.
read -r -a extra <<< "${INPUT_ARGS:-}"
args+=("${extra[@]}")

# Artifacts: paths or globs separated by whitespace (one per line reads best),
# expanded here because no shell sits between the workflow file and shiplint. A
# pattern that matches nothing is an error: a build that produced no wheel must
# not pass. `read` splits without globbing; each pattern is then globbed alone.
patterns=()
read -r -d '' -a patterns <<< "${INPUT_ARTIFACTS:-}" || true
artifacts=()
shopt -s nullglob globstar
for pattern in "${patterns[@]}"; do
  matches=($pattern)
  [ ${#matches[@]} -gt 0 ] || cannot_check "artifacts: '$pattern' matches no file"
  artifacts+=("${matches[@]}")
done
shopt -u nullglob globstar
[ ${#artifacts[@]} -eq 0 ] || args+=(-- "${artifacts[@]}")

# What the checked inputs say (member, symbol and file names, a config's messages) is
# printed to the log only with workflow commands stopped: a name holding `::error::` at a
# line's start, or `##[stop-commands]x` anywhere in it, would otherwise be a command the
# runner obeys (a forged annotation, or every later annotation swallowed). The token that
# resumes them is random, so no input can name it.
token="$("$bin/python" -c 'import secrets; print(secrets.token_hex(16))')"
untrusted() {  # command...
  local status=0
  echo "::stop-commands::$token"
  "$@" || status=$?
  echo "::$token::"
  return "$status"
}

echo "::group::shiplint $(escape_data "${args[*]}")"
set +e
"$bin/shiplint" "${args[@]}" 2> "$work/stderr"
rc=$?
set -e
untrusted cat "$work/stderr" >&2
echo "::endgroup::"
if [ "$rc" -ne 0 ] && [ "$rc" -ne 1 ] || [ ! -s "$json" ]; then
  cannot_check "$(cat "$work/stderr")
(shiplint exited with code $rc)" "$work/stderr"
fi

convert() {  # format [output]
  if [ $# -eq 2 ]; then
    "$bin/python" -m shiplint.report.convert "$json" --root "$root" --format "$1" --output "$2"
  else
    "$bin/python" -m shiplint.report.convert "$json" --root "$root" --format "$1"
  fi
}

if [ "$format" = github ]; then
  convert github  # the annotations themselves: every value in them escaped as data
else
  untrusted convert "$format"
fi
if [ "${INPUT_ANNOTATIONS:-true}" = true ] && [ "$format" != github ]; then
  convert github
fi
mkdir -p "$(dirname "$sarif")"
convert sarif "$sarif"
convert markdown >> "$GITHUB_STEP_SUMMARY"

"$bin/python" - "$json" "$sarif" >> "$GITHUB_OUTPUT" <<'PY'
import json
import sys

summary = json.load(open(sys.argv[1], encoding="utf-8"))["summary"]
print("verdict=" + ("passed" if summary["passed"] else "failed"))
for key in ("errors", "warnings", "infos", "waived", "failing"):
    print(f"{key}={summary[key]}")
print(f"sarif-file={sys.argv[2]}")
print(f"report-json={sys.argv[1]}")
PY

# shiplint's own verdict (1: findings at the failing severity), the one the outputs say.
exit "$rc"
