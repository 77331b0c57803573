"""`.ci/lowest_pins.py`: every runtime dependency pinned to its declared floor, so CI can
run the tests against the lowest versions a user may have."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
SCRIPT = REPO / ".ci" / "lowest_pins.py"


def _pins(text: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text(text, encoding="utf-8")
    return subprocess.run(
        [sys.executable, str(SCRIPT), str(pyproject)],
        capture_output=True,
        text=True,
        check=False,
    )


def test_lowest_pins_pin_every_floor(tmp_path: Path) -> None:
    result = _pins(
        '[project]\ndependencies = ["lief>=0.15.0", "a-b>=1.2,<3", '
        "\"tomli>=2; python_version < '3.11'\"]\n",
        tmp_path,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [
        "lief==0.15.0",
        "a-b==1.2",
        "tomli==2; python_version < '3.11'",
    ]


@pytest.mark.parametrize("requirement", ["lief", "lief<1", "lief==0.15", "lief~=0.15"])
def test_a_dependency_without_a_floor_is_refused(requirement: str, tmp_path: Path) -> None:
    result = _pins(f'[project]\ndependencies = ["{requirement}"]\n', tmp_path)
    assert result.returncode == 2
    assert f"dependency '{requirement}' has no '>=' floor" in result.stderr


def test_the_projects_own_floors_are_all_pinned() -> None:
    result = subprocess.run(
        [sys.executable, str(SCRIPT), str(REPO / "pyproject.toml")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    names = {re.split(r"[=;]", line, maxsplit=1)[0] for line in result.stdout.splitlines()}
    assert {"jsonschema", "pyyaml", "lief", "tree-sitter", "tree-sitter-cmake", "zlib-ng"} <= names
