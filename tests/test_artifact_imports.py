"""A wheel run imports what reading it needs, not what a rarely taken branch needs.

The warm run of the 1.5.1 Linux wheel (every area, both CMake routes) is the one the
speed goals measure: what its process imports is part of its fixed cost. Its METADATA
is read without packaging's metadata module, and a wheel that
does not name the distribution its binaries load is judged without packaging's
requirement and marker parsers. Each run is a child process reporting the modules it
imported beyond what the interpreter starts with.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.imported_modules import loaded, run_cli
from tests.material import (
    EXAMPLE_MANIFEST,
    NEW_CMAKE_VERSION,
    OLD_CMAKE_VERSION,
    cmake,
    wheel,
)

# Never imported by this run: what it does not read, or reads without them.
_NEVER = (
    "lief",
    "packaging.metadata",
    "packaging.requirements",
    "packaging.markers",
    "jsonschema",
    "yaml",
    # The sources model and the export files a source evaluation lays out.
    "shiplint.sources",
    "shiplint.cmake_eval.exports",
)


def test_a_warm_wheel_run_imports_only_what_it_reads(tmp_path: Path) -> None:
    args = ("check", "--no-sources", "--manifest", str(EXAMPLE_MANIFEST),
            "--cmake", str(cmake(OLD_CMAKE_VERSION)), "--cmake", str(cmake(NEW_CMAKE_VERSION)),
            "--format", "json", "--output", str(tmp_path / "report.json"),
            str(wheel("1.5.1", "manylinux_2_28_x86_64")))  # fmt: skip
    first_code, first = run_cli(*args, cache_home=tmp_path / "cache")
    code, imported = run_cli(*args, cache_home=tmp_path / "cache")
    # The real findings (exit 1), with SL321's among them: the requirements were judged.
    assert (first_code, code) == (1, 1)
    findings = json.loads((tmp_path / "report.json").read_text())["diagnostics"]
    assert "SL321" in {finding["code"] for finding in findings}
    assert {"shiplint.artifacts.metadata", "shiplint.checks.requirements"} <= imported
    # The first run validated the manifest; the second trusts the cache for it.
    assert "jsonschema" in first
    assert [name for name in _NEVER if loaded(imported, name)] == []
