"""The built wheel carries the package data the tool needs at run time: schemas/ and rules/."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

from tests.material import REPO


def test_wheel_ships_schemas_and_rules(tmp_path: Path) -> None:
    subprocess.run(
        [sys.executable, "-m", "build", "--wheel", "--outdir", str(tmp_path), str(REPO)],
        check=True,
        capture_output=True,
    )
    (wheel,) = tmp_path.glob("shiplint-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    for schema in sorted((REPO / "schemas").glob("*.json")):
        assert f"shiplint/_data/schemas/{schema.name}" in names
    rules = sorted((REPO / "rules").glob("SL*.yaml"))
    assert rules
    for rule in rules:
        assert f"shiplint/_data/rules/{rule.name}" in names
    assert "shiplint/cli.py" in names
    assert not any(n.startswith("linter/") for n in names)
    # The license the metadata names travels with the wheel.
    license_file = next(n for n in names if n.endswith(".dist-info/licenses/LICENSE"))
    assert "BSD 3-Clause License" in zipfile.ZipFile(wheel).read(license_file).decode()
    metadata = zipfile.ZipFile(wheel).read(next(n for n in names if n.endswith("METADATA")))
    assert "License-Expression: BSD-3-Clause" in metadata.decode()
    entry_points = next(n for n in names if n.endswith("entry_points.txt"))
    assert "shiplint = shiplint.cli:main" in zipfile.ZipFile(wheel).read(entry_points).decode()


def test_installed_wheel_finds_its_data(tmp_path: Path) -> None:
    """Installed into a fresh target, `shiplint rules` reads the catalogue from the wheel."""
    subprocess.run(
        [sys.executable, "-m", "build", "--wheel", "--outdir", str(tmp_path / "dist"), str(REPO)],
        check=True,
        capture_output=True,
    )
    (wheel,) = (tmp_path / "dist").glob("shiplint-*.whl")
    target = tmp_path / "site"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--no-deps",
            "-q",
            "--target",
            str(target),
            str(wheel),
        ],
        check=True,
        capture_output=True,
    )
    result = subprocess.run(
        [sys.executable, "-c", "import shiplint.resources as r; print(r.data_dir('rules'))"],
        env={"PYTHONPATH": str(target), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        check=True,
        cwd=tmp_path,
    )
    assert result.stdout.strip() == str(target / "shiplint" / "_data" / "rules")
