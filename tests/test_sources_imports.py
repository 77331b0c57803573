"""A sources-only run imports only what it uses (pre-commit speed).

The hook runs on every commit, so what its process imports is its start-up time:
no lief (no binary is read), no jsonschema once the manifest was validated, no
archive formats, no CMake evaluation machinery, no report format it was not asked
for, no diff. Each test reports the modules a child process imported beyond what
the interpreter itself starts with (a site hook may import some of them first).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.imported_modules import loaded, run_cli

REPO = Path(__file__).resolve().parent.parent
FIXTURE = REPO / "tests" / "fixtures" / "srcproject"

# Imported by a sources-only run only when something it was not asked for loads. (Not
# lzma or bz2: shutil, which the CLI needs, imports both on Python 3.11 and 3.12.)
_NEVER = (
    "lief",
    "shiplint.artifacts.archive",
    "shiplint.artifacts.inventory",
    "shiplint.artifacts.reading.worker",
    "shiplint.artifacts.metadata",
    "shiplint.cmake_eval.evaluate",
    "shiplint.cmake_eval.run",
    "shiplint.probes.link.probe",
    "shiplint.operators.collect",
    "shiplint.diff",
    "packaging",
    "tarfile",
    "zipfile",
    "ctypes",
    "pickle",
    "subprocess",
    "concurrent.futures",
)


# The rules and models of the areas a sources-only run does not build.
_OTHER_AREAS = (
    "shiplint.artifacts.model",
    "shiplint.artifacts.records",
    "shiplint.cmake_eval",
    "shiplint.operators",
    "shiplint.probes",
    "shiplint.checks.artifacts",
    "shiplint.checks.config_eval",
    "shiplint.checks.link_probe",
)

# What walks the sources and reads the build declarations: a run whose sources model is
# stored, and whose files are unchanged, loads none of it.
_WALK = (
    "shiplint.sources.interpret",
    "shiplint.sources.targets",
    "shiplint.sources.declarations",
    "shiplint.sources.packaging",
    "shiplint.sources.parse_cache",
    "shiplint.sources.cmake_parse",
)


@pytest.mark.parametrize("report", ["json", "text"])
def test_a_sources_run_imports_only_what_it_uses(tmp_path: Path, report: str) -> None:
    args = ("check", "--root", str(FIXTURE), "--manifest", str(FIXTURE / "shiplint.yaml"),
            "--select", "SL2", "--format", report, "--output", str(tmp_path / "report"))  # fmt: skip
    first_code, first = run_cli(*args, cache_home=tmp_path / "cache", timeout=120)
    code, imported = run_cli(*args, cache_home=tmp_path / "cache", timeout=120)
    # Exit 0 (only the SL208 info), the asked-for reporter loaded.
    assert (first_code, code) == (0, 0)
    assert f"shiplint.report.{report}" in imported
    assert [name for name in _NEVER if loaded(imported, name)] == []
    # Nor the rules it cannot use, nor the models only those read.
    assert [name for name in _OTHER_AREAS if loaded(imported, name)] == []
    others = {"text", "json", "sarif", "github", "markdown", "convert"} - {report}
    assert sorted(imported & {f"shiplint.report.{name}" for name in others}) == []
    # The first run parsed and validated the manifest and walked the CMake files; the
    # second trusts the cache for all of it: it loads no parser, validator or walk.
    cached = ("jsonschema", "yaml", "tomllib", "tree_sitter", *_WALK)
    assert set(cached) <= first
    assert [name for name in cached if loaded(imported, name)] == []


def test_the_checks_import_no_reader(tmp_path: Path) -> None:
    """The rule registry (imported by every run) holds the model types, not their readers."""
    script = (
        "import sys\nbefore = set(sys.modules)\nfrom shiplint.registry import RULES\n"
        "print(' '.join(sorted(set(sys.modules) - before)))"
    )
    result = subprocess.run(
        [sys.executable, "-c", script],
        cwd=REPO, capture_output=True, text=True, timeout=60, check=True,
    )  # fmt: skip
    imported = set(result.stdout.split())
    assert "shiplint.checks.artifacts" in imported
    assert [name for name in _NEVER if loaded(imported, name)] == []
