#!/usr/bin/env bash
# Decide where shiplint's user cache lives for this run, and whether it travels
# between runs (GitHub's cache service). A kept cache is an input like any other:
# it is restored and saved only when the workflow gives a secret its entries are
# authenticated with (a repository secret; a fork's pull request never has one),
# so an entry nobody holding the secret wrote is never used. Without the secret the
# run starts cold, in an empty directory of its own, and nothing is saved.
#
# Env: GITHUB_OUTPUT, RUNNER_TEMP, GITHUB_RUN_ID, GITHUB_RUN_ATTEMPT, INPUT_CACHE,
# INPUT_CACHE_SECRET (never printed), INPUT_CMAKE, INPUT_CMAKE_VERSIONS.
# Outputs: enabled, home (the run's XDG_CACHE_HOME), dir (what is restored and
# saved), key, restore-prefix.
set -euo pipefail

venv="${RUNNER_TEMP}/shiplint-venv"
if [ -x "$venv/bin/python" ]; then bin="$venv/bin"; else bin="$venv/Scripts"; fi
home="${RUNNER_TEMP}/shiplint-cache"

case "${INPUT_CACHE:-true}" in
  true|false) ;;
  *) echo "::error title=shiplint::cache: expected true or false, got '${INPUT_CACHE//[$'\r\n']/ }'"
     exit 2 ;;
esac

# A cache an earlier use of the action in this job left is not this run's to trust.
rm -rf "$home"
mkdir -p "$home"
chmod 700 "$home"

enabled=false
if [ "${INPUT_CACHE:-true}" = true ]; then
  if [ -n "${INPUT_CACHE_SECRET:-}" ]; then
    enabled=true
  else
    echo "shiplint: no cache-secret given (a fork's pull request has none): starting with an empty cache; nothing is restored or saved"
  fi
fi

# Which kept cache fits: the same tools (shiplint, its Python, the runner's system,
# the CMakes). Entries are keyed by content inside; this only picks the archive.
identity="$("$bin/shiplint" --version)
$("$bin/python" -VV)
$(uname -sm)"
for version in ${INPUT_CMAKE_VERSIONS:-}; do
  identity+=$'\n'"cmake ${version}"
done
while IFS= read -r line; do
  [ -z "$line" ] || identity+=$'\n'"$line $( ("$line" --version 2>/dev/null || true) | head -n 1)"
done <<< "${INPUT_CMAKE:-}"
digest="$(printf '%s' "$identity" | "$bin/python" -c 'import hashlib, sys; print(hashlib.sha256(sys.stdin.buffer.read()).hexdigest()[:20])')"
prefix="shiplint-cache-$(uname -s)-$(uname -m)-${digest}-"
{
  echo "enabled=${enabled}"
  echo "home=${home}"
  echo "dir=${home}/shiplint"
  echo "key=${prefix}${GITHUB_RUN_ID:-0}-${GITHUB_RUN_ATTEMPT:-1}"
  echo "restore-prefix=${prefix}"
} >> "$GITHUB_OUTPUT"
