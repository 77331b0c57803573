"""A wheel run imports what reading it needs, not what a rarely taken branch needs.

The warm run of the 1.5.1 Linux wheel (every area, both CMake routes) is the one the
speed goals measure: what its process imports is part of its fixed cost. Its METADATA
is read without the email package or packaging's metadata module, and a wheel that
does not name the distribution its binaries load is judged without packaging's
requirement and marker parsers. Each run is a child process reporting the modules it
imported beyond what the interpreter starts with.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.material import (
    EXAMPLE_MANIFEST,
    NEW_CMAKE_VERSION,
    OLD_CMAKE_VERSION,
    REPO,
    cmake,
    wheel,
)

_SCRIPT = """
import json
import sys
before = set(sys.modules)
from shiplint.cli import main
code = main(sys.argv[1:])
print(json.dumps({"code": code, "imported": sorted(set(sys.modules) - before)}))
"""

# Never imported by this run: what it does not read, or reads without them.
_NEVER = (
    "lief",
    "email",
    "packaging.metadata",
    "packaging.requirements",
    "packaging.markers",
    "jsonschema",
    "yaml",
    # The sources model and the export files a source evaluation lays out.
    "shiplint.sources",
    "shiplint.cmake_eval.exports",
)


def _run(*args: str, cache_home: Path) -> tuple[int, set[str]]:
    env = {**os.environ, "XDG_CACHE_HOME": str(cache_home)}
    result = subprocess.run(
        [sys.executable, "-c", _SCRIPT, *args],
        cwd=REPO, capture_output=True, text=True, timeout=600, check=False, env=env,
    )  # fmt: skip
    assert result.stdout, result.stderr
    outcome = json.loads(result.stdout.splitlines()[-1])
    return outcome["code"], set(outcome["imported"])


def _loaded(imported: set[str], name: str) -> bool:
    return any(module == name or module.startswith(name + ".") for module in imported)


def test_a_warm_wheel_run_imports_only_what_it_reads(tmp_path: Path) -> None:
    args = ("check", "--no-sources", "--manifest", str(EXAMPLE_MANIFEST),
            "--cmake", str(cmake(OLD_CMAKE_VERSION)), "--cmake", str(cmake(NEW_CMAKE_VERSION)),
            "--format", "json", "--output", str(tmp_path / "report.json"),
            str(wheel("1.5.1", "manylinux_2_28_x86_64")))  # fmt: skip
    first_code, first = _run(*args, cache_home=tmp_path / "cache")
    code, imported = _run(*args, cache_home=tmp_path / "cache")
    # The real findings (exit 1), with SL321's among them: the requirements were judged.
    assert (first_code, code) == (1, 1)
    findings = json.loads((tmp_path / "report.json").read_text())["diagnostics"]
    assert "SL321" in {finding["code"] for finding in findings}
    assert {"shiplint.artifacts.metadata", "shiplint.checks.requirements"} <= imported
    # The first run validated the manifest; the second trusts the cache for it.
    assert "jsonschema" in first
    assert [name for name in _NEVER if _loaded(imported, name)] == []
