"""A replayed evaluation finds what a fresh one finds, on real wheels with both CMake routes.

The ExecuTorch 1.5.1 Linux wheel (its config runs python3 at every inclusion) and
the OpenVINO wheel (nested targets, a vendored TBB): the JSON report of a run that
evaluates, of one that replays, and of one with --no-cache are the same document,
and --verbose says per route which it was.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from shiplint.cli import main

from tests.material import (
    NEW_CMAKE_VERSION,
    OLD_CMAKE_VERSION,
    REPO,
    cmake,
    example_manifest,
    other_wheel,
    wheel,
)


def _report(
    example: str, artifact: Path, output: Path, capsys: pytest.CaptureFixture[str], *extra: str
) -> tuple[str, str]:
    main(
        [
            "check", "--no-sources", "--verbose", *extra,
            "--manifest", str(example_manifest(example).relative_to(REPO)),
            "--root", str(REPO),
            "--cmake", str(cmake(OLD_CMAKE_VERSION)),
            "--cmake", str(cmake(NEW_CMAKE_VERSION)),
            "--format", "json", "--output", str(output),
            str(artifact),
        ]
    )  # fmt: skip
    return output.read_text(encoding="utf-8"), capsys.readouterr().err


@pytest.mark.parametrize(
    ("example", "artifact", "runs"),
    [
        ("executorch", lambda: wheel("1.5.1", "manylinux_2_28_x86_64"), 2),
        # Two CMake packages (OpenVINO and its vendored TBB), each on both routes.
        ("openvino", lambda: other_wheel("openvino"), 4),
    ],
    ids=["executorch-1.5.1", "openvino"],
)
def test_a_replayed_evaluation_reports_what_a_fresh_one_does(
    example: str,
    artifact: object,
    runs: int,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "user-cache"))
    monkeypatch.delenv("SHIPLINT_NO_CACHE", raising=False)
    given = artifact()  # type: ignore[operator]
    fresh, said = _report(example, given, tmp_path / "fresh.json", capsys)
    assert said.count("): evaluated") == runs and "reused" not in said
    replayed, said = _report(example, given, tmp_path / "replayed.json", capsys)
    assert said.count("): reused (replayed from the user cache)") == runs
    assert replayed == fresh
    again, said = _report(example, given, tmp_path / "again.json", capsys, "--no-cache")
    assert said.count("): evaluated") == runs and again == fresh
    monkeypatch.setenv("SHIPLINT_NO_CACHE", "1")
    _, said = _report(example, given, tmp_path / "env.json", capsys)
    assert said.count("): evaluated") == runs and "reused" not in said


def _entries(home: Path) -> dict[str, int]:
    """Each kept run's file and inode: a run that evaluates writes its entry anew."""
    return {p.name: p.stat().st_ino for p in (home / "shiplint" / "cmake-evaluations").iterdir()}


def test_diff_replays_and_its_no_cache_evaluates_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "user-cache"
    monkeypatch.setenv("XDG_CACHE_HOME", str(home))
    monkeypatch.delenv("SHIPLINT_NO_CACHE", raising=False)
    given = str(wheel("1.5.1", "manylinux_2_28_x86_64"))
    command = [
        "diff", "--manifest", str(example_manifest("executorch")),
        "--cmake", str(cmake(NEW_CMAKE_VERSION)),
        "--output", str(tmp_path / "diff.txt"), given, given,
    ]  # fmt: skip
    assert main(command) == 0
    kept = _entries(home)
    assert kept
    assert main(command) == 0
    assert _entries(home) == kept  # replayed: nothing written again
    assert main([command[0], "--no-cache", *command[1:]]) == 0
    again = _entries(home)
    assert again.keys() == kept.keys() and all(again[k] != kept[k] for k in kept)
