#!/usr/bin/env bash
# Install shiplint from the action's own checkout into a private virtual
# environment under RUNNER_TEMP, so the workflow's Python stays untouched and the
# version is the one the workflow pinned with `uses: ...@ref`. Also installs any
# requested CMake releases from PyPI, one directory per version.
#
# Env: GITHUB_ACTION_PATH, RUNNER_TEMP, SHIPLINT_PYTHON, INPUT_CMAKE_VERSIONS.
set -euo pipefail

venv="${RUNNER_TEMP}/shiplint-venv"
marker="${venv}/.shiplint-source"
python="${SHIPLINT_PYTHON:-python3}"

if [ -f "$marker" ] && [ "$(cat "$marker")" = "$GITHUB_ACTION_PATH" ]; then
  echo "shiplint: already installed from $GITHUB_ACTION_PATH"
else
  "$python" -m venv "$venv"
  if [ -x "$venv/bin/python" ]; then bin="$venv/bin"; else bin="$venv/Scripts"; fi
  "$bin/python" -m pip install --quiet --disable-pip-version-check "$GITHUB_ACTION_PATH"
  printf '%s' "$GITHUB_ACTION_PATH" > "$marker"
fi
if [ -x "$venv/bin/python" ]; then bin="$venv/bin"; else bin="$venv/Scripts"; fi
"$bin/shiplint" --version

# CMake releases from PyPI (e.g. "3.24.3 4.4.5": one per config route). The wheel's
# real binary is cmake/data/bin/cmake; bin/cmake in a --target dir is a Python shim.
for version in ${INPUT_CMAKE_VERSIONS:-}; do
  if ! [[ "$version" =~ ^[0-9]+(\.[0-9]+){1,3}$ ]]; then
    echo "::error title=shiplint::cmake-versions: '$version' is not a version like 3.24.3"
    exit 2
  fi
  target="${RUNNER_TEMP}/shiplint-cmake-${version}"
  binary="$target/cmake/data/bin/cmake"
  if [ ! -x "$binary" ]; then
    "$bin/python" -m pip install --quiet --disable-pip-version-check --no-deps \
      --target "$target" "cmake==${version}"
  fi
  "$binary" --version | head -n 1
done
