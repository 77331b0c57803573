"""An artifact's evaluation tree is planned in memory and written only for a CMake run.

The replay key is digested from the plan; it must be the digest of the tree once
written, or a replay would answer for another tree. Real wheels (ExecuTorch's 4,605
members, OpenVINO's) and a small package whose config holds its own path, CRLF
line ends and bytes that are not UTF-8; real CMake for the replay.
"""

from __future__ import annotations

import os
import threading
from dataclasses import replace
from pathlib import Path

import pytest
from shiplint.artifacts.archive import open_artifact
from shiplint.artifacts.inventory import list_artifact
from shiplint.cmake_eval.cmake_binary import identify
from shiplint.cmake_eval.evaluate import evaluate_once, evaluation_platform
from shiplint.cmake_eval.layout import Layout, layout_artifact
from shiplint.cmake_eval.replay import _planned_digest, _tree_digest
from shiplint.manifest.load import load_manifest
from shiplint.manifest.model import Manifest

from tests.builders import config_package, listing_as
from tests.material import (
    EXAMPLE_MANIFEST,
    NEW_CMAKE_VERSION,
    cmake,
    example_manifest,
    other_wheel,
    wheel,
)
from tests.test_cmake_eval_probe import LINUX, _manifest


def _planned(artifact: Path, manifest: Manifest, dest: Path) -> Layout:
    tree = open_artifact(artifact)
    listing = list_artifact(tree, manifest)
    if listing.platform is None:
        listing = listing_as(tree, manifest, LINUX)
    platform = evaluation_platform(listing, manifest)
    layout = layout_artifact(tree, listing, manifest, platform, listing.libraries, dest)
    assert isinstance(layout, Layout)
    return layout


def _walked(directory: Path) -> list[str]:
    """Every directory and file under `directory`, relative, with a slash after a directory."""
    out = []
    for current, directories, files in os.walk(directory):
        relative = os.path.relpath(current, directory)
        out += [os.path.normpath(os.path.join(relative, d)) + "/" for d in directories]
        out += [os.path.normpath(os.path.join(relative, f)) for f in files]
    return sorted(out)


def _check_plan_is_the_written_tree(layout: Layout, run_root: Path) -> None:
    planned = layout.planned
    assert planned is not None
    assert not layout.root.exists()  # planned, not written
    from_plan = _planned_digest(planned, str(run_root))
    from_plan_files = list(layout.cmake_files())
    layout.write()
    layout.write()  # a second write (the other CMake's run) changes nothing
    written = replace(layout, planned=None)
    assert _tree_digest(layout.root, run_root, frozenset()) == from_plan
    assert list(written.cmake_files()) == from_plan_files
    expected = {d + "/" for d in planned.directories() if d} | set(planned.files)
    assert _walked(layout.root) == sorted(expected)


@pytest.mark.parametrize(
    ("artifact", "manifest"),
    [
        (wheel("1.5.1", "manylinux_2_28_x86_64"), EXAMPLE_MANIFEST),
        (other_wheel("openvino"), example_manifest("openvino")),
    ],
    ids=["executorch", "openvino"],
)
def test_a_real_wheels_plan_digests_as_its_written_tree(
    tmp_path: Path, artifact: Path, manifest: Path
) -> None:
    layout = _planned(artifact, load_manifest(manifest), tmp_path / "run" / "tree")
    assert layout.planned is not None and len(layout.planned.files) > 100
    _check_plan_is_the_written_tree(layout, tmp_path / "run")


def test_a_config_naming_its_own_path_digests_as_written(tmp_path: Path) -> None:
    run_root = tmp_path / "run"
    config = f"# laid out in {run_root}/tree\r\nset(pkg_FOUND TRUE)\r\n".encode() + b"\xff\n"
    package = config_package(tmp_path, "")
    (package / "pkg" / "share" / "cmake" / "pkg-config.cmake").write_bytes(config)
    (package / "pkg" / "share" / "cmake" / "empty.cmake").write_bytes(b"")
    (package / "pkg" / "include" / "a-b").mkdir(parents=True)
    (package / "pkg" / "include" / "a-b" / "x.h").write_bytes(b"")
    layout = _planned(package, _manifest(), run_root / "tree")
    _check_plan_is_the_written_tree(layout, run_root)
    # The run directory's path is a placeholder: the same package planned in another run
    # directory is the same input, and a changed byte is another.
    (package / "pkg" / "share" / "cmake" / "pkg-config.cmake").write_bytes(b"set(pkg_FOUND 1)\n")

    def digest(name: str) -> bytes:
        planned = _planned(package, _manifest(), tmp_path / name / "tree").planned
        assert planned is not None
        return _planned_digest(planned, str(tmp_path / name))

    before = digest("one")
    assert digest("two") == before
    (package / "pkg" / "share" / "cmake" / "empty.cmake").write_bytes(b" ")
    assert digest("three") != before


def test_a_replayed_evaluation_writes_no_tree(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "user-cache"))
    package = config_package(tmp_path, "set(pkg_FOUND TRUE)\nset(PKG_LIBRARIES pkg::pkg)\n")
    manifest = _manifest()
    binary = cmake(NEW_CMAKE_VERSION)
    runs = []
    for name in ("first", "second"):
        layout = _planned(package, manifest, tmp_path / name / "tree")
        evaluation = evaluate_once(
            layout, manifest, identify(str(binary)), str(binary), None, 60.0,
            tmp_path / name / "run0",
        )  # fmt: skip
        runs.append((evaluation, layout.root.exists()))
    (first, first_wrote), (second, second_wrote) = runs
    assert first.failure is None and not first.reused and first_wrote
    assert second.reused and not second_wrote
    assert replace(first, seconds=0.0, reused=True) == replace(second, seconds=0.0)


def test_a_tree_the_file_system_refuses_is_a_failed_evaluation(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "user-cache"))
    package = config_package(tmp_path, "set(pkg_FOUND TRUE)\n")
    # The run directory is a file: nothing can be laid out under it.
    (tmp_path / "blocked").write_bytes(b"")
    layout = _planned(package, _manifest(), tmp_path / "blocked" / "tree")
    binary = cmake(NEW_CMAKE_VERSION)
    threads = set(threading.enumerate())
    evaluation = evaluate_once(
        layout, _manifest(), identify(str(binary)), str(binary), None, 60.0,
        tmp_path / "run0",
    )  # fmt: skip
    # The trace's reader was ended too: no thread is left waiting on its FIFO.
    assert set(threading.enumerate()) <= threads
    assert evaluation.failure is not None and not evaluation.found
    assert evaluation.failure.message.startswith(
        "cannot lay out the package to evaluate its config: Not a directory"
    )
    assert evaluation.failure.location == layout.config_location
