"""Temporary trees removed in the background: gone once the command has waited for them."""

from __future__ import annotations

import os
import tempfile
import time
from pathlib import Path

import pytest
from shiplint import cli
from shiplint.scratch import removals_done, scratch_tree

from tests.material import NEW_CMAKE_VERSION, cmake, example_manifest, other_wheel


def test_a_tree_is_removed_once_its_removal_is_waited_for() -> None:
    with scratch_tree("shiplint-test-") as name:
        tree = Path(name)
        for index in range(200):
            (tree / "deep" / str(index % 7)).mkdir(parents=True, exist_ok=True)
            (tree / "deep" / str(index % 7) / f"{index}.h").touch()
        # A directory the evaluated config made read-only is removed too.
        locked = tree / "locked"
        (locked / "inside").mkdir(parents=True)
        (locked / "inside" / "file").touch()
        os.chmod(locked, 0o500)
    removals_done()
    assert not tree.exists()


def test_a_tree_left_by_an_exception_is_removed_too() -> None:
    try:
        with scratch_tree("shiplint-test-") as name:
            (Path(name) / "file").touch()
            raise RuntimeError("a run that failed")
    except RuntimeError:
        pass
    removals_done()
    assert not Path(name).exists()


def test_a_check_leaves_no_tree_behind(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    # A TMPDIR of the test's own: whatever the check made there is the check's.
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    # A removal slower than the rest of the check: only waiting for it leaves nothing.
    cleanup = tempfile.TemporaryDirectory.cleanup

    def slow_cleanup(self: tempfile.TemporaryDirectory[str]) -> None:
        time.sleep(0.5)
        cleanup(self)

    monkeypatch.setattr(tempfile.TemporaryDirectory, "cleanup", slow_cleanup)
    code = cli.main(
        [
            "check",
            "--no-sources",
            "-q",
            "--manifest",
            str(example_manifest("fmt")),
            "--cmake",
            str(cmake(NEW_CMAKE_VERSION)),
            str(other_wheel("fmt")),
        ]
    )
    assert code == 0
    assert list(tmp_path.iterdir()) == []
