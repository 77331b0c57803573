"""Hostile `[tool.shiplint]` tables end in a located exit-2 error, never an internal error."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from shiplint.cli import main

from tests.material import EXAMPLE_MANIFEST

T = "[tool.shiplint]\n"
CASES: dict[str, tuple[str, str]] = {
    "tool-not-a-table": ("tool = 5\n", ":1:1: tool is not a table"),
    "shiplint-not-a-table": ("[tool]\nshiplint = 5\n", ":2:1: [tool.shiplint] must be one table"),
    "array-of-tables": ("[[tool.shiplint]]\nselect = ['SL1']\n", "must be one table"),
    "deep-arrays": (T + "select = " + "[" * 5000 + "]" * 5000 + "\n", "nested too deeply"),
    "arrays-past-the-depth-bound": (
        T + "select = " + "[" * 50 + "]" * 50 + "\n",
        ":1:1: values nest deeper than 8 levels",
    ),
    "nan-timeout": (T + "cmake-timeout = nan\n", ":2:1: nan is not a number of seconds"),
    "many-unknown-keys": (
        T + "".join(f"unknown{i} = {i}\n" for i in range(2_000)),
        ":1:1: and 1,980 more unknown keys",
    ),
    "long-unknown-key": (T + "x" * 10_000 + " = 1\n", "… (10,000 characters)"),
    "manifest-outside": (
        T + "manifest = '../../../../../../../../etc/passwd'\n",
        ":2:1: '../../../../../../../../etc/passwd' is outside the project",
    ),
    "manifest-absolute": (T + "manifest = '/etc/passwd'\n", "is outside the project"),
    "manifest-newline": (T + 'manifest = "x\\n/y"\n', "holds a control character"),
    "manifest-nul": (T + 'manifest = "a\\u0000b"\n', "holds a control character"),
    "not-utf8": ("\xff\xfe not toml", "not UTF-8 text (byte 0xff)"),
}


def _project(tmp_path: Path) -> Path:
    (tmp_path / "shiplint.yaml").write_text(EXAMPLE_MANIFEST.read_text())
    return tmp_path


@pytest.mark.parametrize("case", sorted(CASES))
def test_hostile_config_is_a_located_error(
    case: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text, expected = CASES[case]
    root = _project(tmp_path)
    (root / "pyproject.toml").write_bytes(
        text.encode("latin-1") if text.startswith("\xff") else text.encode()
    )
    assert main(["check", "--root", str(root)]) == 2
    err = capsys.readouterr().err
    assert expected in err
    assert f"{root / 'pyproject.toml'}:" in err
    assert "internal error" not in err and "root:x:0" not in err


@pytest.mark.parametrize("kind", ["fifo", "dev-zero", "directory"])
def test_pyproject_that_is_no_regular_file_is_not_opened(
    kind: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _project(tmp_path)
    path = root / "pyproject.toml"
    if kind == "fifo":
        os.mkfifo(path)  # opening it for reading would wait for a writer forever
    elif kind == "dev-zero":
        path.symlink_to("/dev/zero")
    else:
        path.mkdir()
    assert main(["check", "--root", str(root)]) == 2
    assert "not a regular file" in capsys.readouterr().err
