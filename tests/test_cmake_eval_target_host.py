"""What a config asks of the host is answered for the artifact's platform.

Real CMake of both routes; wheels built as zip files named as real wheels are (the
python and platform tags are what the stand-ins answer for); the real ExecuTorch
1.0.1 macOS wheel, whose config asks python3 for the extension suffix.
"""

from __future__ import annotations

import tempfile
import zipfile
from pathlib import Path

import pytest
from shiplint import cache
from shiplint.artifacts.archive import open_artifact
from shiplint.artifacts.inventory import list_artifact
from shiplint.cmake_eval import evaluate_artifact, target_host
from shiplint.cmake_eval.model import ConfigEvaluation
from shiplint.cmake_eval.target_host import wheel_python
from shiplint.engine import Selection, lint
from shiplint.manifest.load import load_manifest
from shiplint.manifest.model import Aggregate, Carries, LibraryKind, Manifest
from shiplint.registry import RULES
from shiplint.scratch import scratch_dir

from tests.builders import library, manifest
from tests.material import (
    EXAMPLE_MANIFEST,
    NEW_CMAKE_VERSION,
    OLD_CMAKE_VERSION,
    cmake,
    wheel,
)
from tests.test_cmake_eval_executorch import GOLDEN_DIR, _pinned, _render

BOTH = [OLD_CMAKE_VERSION, NEW_CMAKE_VERSION]

# Publishes what it was told, one answer per variable (PKG_ANSWERS is the manifest's
# aggregate, so it comes back whatever it holds).
_ASKING = r"""
execute_process(COMMAND python3 -c
  "import sysconfig, platform; print(sysconfig.get_config_var('EXT_SUFFIX'), platform.system(), platform.machine(), sysconfig.get_platform(), sep='|')"
  OUTPUT_VARIABLE _python OUTPUT_STRIP_TRAILING_WHITESPACE)
execute_process(COMMAND uname -s -m OUTPUT_VARIABLE _uname OUTPUT_STRIP_TRAILING_WHITESPACE)
@MORE@
set(PKG_ANSWERS "python=${_python}" "uname=${_uname}")
set(pkg_FOUND TRUE)
"""


def _manifest() -> Manifest:
    return manifest(
        libraries=(library("pkg", LibraryKind.RUNTIME, components=("runtime",)),),
        aggregates=(Aggregate("PKG_ANSWERS", Carries(), ()),),
    )


def _wheel(tmp_path: Path, tags: str, more: str = "") -> Path:
    tmp_path.mkdir(parents=True, exist_ok=True)
    path = tmp_path / f"pkg-1.0-{tags}.whl"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("pkg/share/cmake/pkg-config.cmake", _ASKING.replace("@MORE@", more))
        archive.writestr("pkg-1.0.dist-info/WHEEL", f"Wheel-Version: 1.0\nTag: {tags}\n")
    return path


def _evaluate(path: Path, version: str) -> ConfigEvaluation:
    the_manifest = _manifest()
    with open_artifact(path) as tree:
        models = evaluate_artifact(
            tree, list_artifact(tree, the_manifest), the_manifest, [str(cmake(version))], 60.0
        )
    (evaluation,) = [m for m in models if isinstance(m, ConfigEvaluation)]
    assert evaluation.failure is None, evaluation.failure
    return evaluation


def _answers(evaluation: ConfigEvaluation) -> dict[str, str]:
    (aggregate,) = evaluation.aggregates
    return dict(entry.raw.split("=", 1) for entry in aggregate.entries)


@pytest.mark.parametrize("version", BOTH)
@pytest.mark.parametrize(
    ("tags", "python", "uname"),
    [
        (
            "cp311-cp311-macosx_12_0_arm64",
            ".cpython-311-darwin.so|Darwin|arm64|macosx-12.0-arm64",
            "Darwin arm64",
        ),
        (
            "cp312-cp312-win_amd64",
            ".cp312-win_amd64.pyd|Windows|AMD64|win-amd64",
            None,  # no uname on Windows: the real one answers, and that is said (SL127)
        ),
        (
            "cp310-cp310-manylinux_2_28_aarch64",
            ".cpython-310-aarch64-linux-gnu.so|Linux|aarch64|linux-aarch64",
            "Linux aarch64",
        ),
    ],
)
def test_python_and_uname_answer_for_the_wheels_platform(
    tmp_path: Path, version: str, tags: str, python: str, uname: str | None
) -> None:
    evaluation = _evaluate(_wheel(tmp_path, tags), version)
    answers = _answers(evaluation)
    assert answers["python"] == python
    if uname is not None:
        assert answers["uname"] == uname
        assert evaluation.host_answers == ()
    # The real uname answered for Windows: one info finding naming the question.
    the_manifest = _manifest()
    found = lint(RULES, the_manifest, [evaluation], Selection(select=("SL127",)))
    if uname is None:
        (finding,) = found
        assert "`uname -s -m`" in finding.message and "windows-x86_64" in finding.message
    else:
        assert found == []


def test_a_question_the_stand_in_does_not_take_apart_is_said(tmp_path: Path) -> None:
    # `-i` (interactive after the command) is no form the stand-in knows: the real
    # interpreter answers, unpatched, and the evaluation says so once.
    more = (
        'execute_process(COMMAND python3 -i -c "import sys" '
        "INPUT_FILE /dev/null OUTPUT_QUIET ERROR_QUIET)\n"
        'execute_process(COMMAND python3 -i -c "import sys" '
        "INPUT_FILE /dev/null OUTPUT_QUIET ERROR_QUIET)"
    )
    evaluation = _evaluate(
        _wheel(tmp_path, "cp311-cp311-macosx_12_0_arm64", more), NEW_CMAKE_VERSION
    )
    assert evaluation.host_answers == ("python -i -c import sys",)
    (finding,) = lint(RULES, _manifest(), [evaluation], Selection(select=("SL127",)))
    assert finding.severity.value == "info"
    # Everything else was still answered for macOS.
    assert _answers(evaluation)["python"].startswith(".cpython-311-darwin.so|Darwin")


def test_the_stand_ins_are_part_of_what_a_kept_run_is_keyed_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "user-cache"))
    first = _evaluate(_wheel(tmp_path / "a", "cp311-cp311-macosx_12_0_arm64"), NEW_CMAKE_VERSION)
    again = _evaluate(_wheel(tmp_path / "b", "cp311-cp311-macosx_12_0_arm64"), NEW_CMAKE_VERSION)
    assert not first.reused and again.reused
    # The same config and tree for another Python: other stand-ins, so evaluated again.
    other = _evaluate(_wheel(tmp_path / "c", "cp312-cp312-macosx_12_0_arm64"), NEW_CMAKE_VERSION)
    assert not other.reused
    assert _answers(other)["python"].startswith(".cpython-312-darwin.so|")
    with cache.refusing_reuse(True):
        assert not _evaluate(
            _wheel(tmp_path / "d", "cp311-cp311-macosx_12_0_arm64"), NEW_CMAKE_VERSION
        ).reused


def test_stand_ins_run_from_elsewhere_when_the_run_directory_runs_no_program(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A noexec /dev/shm (as containers mount it) lets no stand-in run there: they go to
    the system's temporary directory, answer the same and are keyed by what they are."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "user-cache"))
    system_temp = tempfile.gettempdir()
    run_parent = scratch_dir() or system_temp

    def runs_programs(directory: Path) -> bool:
        # The evaluation's own directory lets nothing run; the system's temp does.
        return str(directory) == system_temp or not str(directory).startswith(run_parent)

    monkeypatch.setattr(target_host, "_runs_programs", runs_programs)
    wheel = _wheel(tmp_path / "a", "cp311-cp311-macosx_12_0_arm64")
    first = _evaluate(wheel, NEW_CMAKE_VERSION)
    assert _answers(first)["python"].startswith(".cpython-311-darwin.so|Darwin")
    assert first.host_answers == ()
    assert _evaluate(wheel, NEW_CMAKE_VERSION).reused


def test_no_place_to_run_a_stand_in_is_said(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(target_host, "_runs_programs", lambda d: False)
    evaluation = _evaluate(_wheel(tmp_path, "cp311-cp311-macosx_12_0_arm64"), NEW_CMAKE_VERSION)
    (said,) = evaluation.host_answers
    assert "no stand-in" in said
    (finding,) = lint(RULES, _manifest(), [evaluation], Selection(select=("SL127",)))
    assert "the host, not macos-aarch64, answered" in finding.message


@pytest.mark.parametrize(
    ("label", "python"),
    [
        ("executorch-1.0.1-cp311-cp311-macosx_12_0_arm64.whl", (3, 11)),
        ("pkg-1.0-1-cp39.cp310-cp310-win_amd64.whl", (3, 9)),
        ("tbb-2021.13.1-py2.py3-none-manylinux1_x86_64.whl", None),
        ("pkg-1.0-cp38-abi3-linux_x86_64.whl", (3, 8)),
        ("pkg-1.0.tar.gz", None),
        ("pkg-cp311.whl", None),
    ],
)
def test_the_wheels_python_comes_from_its_tag(label: str, python: tuple[int, int] | None) -> None:
    assert wheel_python(label) == python


def test_the_1_0_1_macos_wheel_offers_its_python_extension() -> None:
    """ExecuTorch 1.0.1's 2 KB config looks for `_portable_lib<EXT_SUFFIX>` with the
    suffix python3 gives; answered for the macOS cp311 wheel it finds the extension
    (before, a Linux host's suffix found nothing: "offering nothing in its aggregates")."""
    et_manifest = load_manifest(EXAMPLE_MANIFEST)
    routes = [str(cmake(OLD_CMAKE_VERSION)), str(cmake(NEW_CMAKE_VERSION))]
    with open_artifact(wheel("1.0.1", "macosx_12_0_arm64")) as tree:
        models = evaluate_artifact(tree, list_artifact(tree, et_manifest), et_manifest, routes, 120)
    evaluations = [m for m in models if isinstance(m, ConfigEvaluation)]
    assert len(evaluations) == 2
    for evaluation in evaluations:
        assert evaluation.failure is None and evaluation.found and evaluation.host_answers == ()
        (target,) = evaluation.targets
        assert target.name == "_portable_lib"
        assert (
            target.location == "executorch/extension/pybindings/_portable_lib.cpython-311-darwin.so"
        )
        libraries = evaluation.variable("EXECUTORCH_LIBRARIES")
        assert libraries is not None and libraries.text == "_portable_lib"
    diagnostics = lint(RULES, et_manifest, models, Selection(select=("SL1",)))
    _pinned(GOLDEN_DIR / "executorch-1.0.1-macos.txt", _render(diagnostics))


def test_the_1_0_1_windows_wheel_is_told_its_suffix_and_still_finds_nothing() -> None:
    """The same config in the Windows wheel is told `.cp311-win_amd64.pyd` now (the
    platform tests above), and its `find_library(NAMES _portable_lib.cp311-win_amd64.pyd)`
    finds nothing anyway: find_library tries a name as given only when it ends in one of
    the platform's library suffixes, and `.pyd` is none of Windows'. So on Windows the
    config offers nothing, as a consumer there gets; said (SL129: found, with nothing to
    link), not blamed on the host."""
    et_manifest = load_manifest(EXAMPLE_MANIFEST)
    routes = [str(cmake(OLD_CMAKE_VERSION)), str(cmake(NEW_CMAKE_VERSION))]
    with open_artifact(wheel("1.0.1", "win_amd64")) as tree:
        assert "executorch/extension/pybindings/_portable_lib.cp311-win_amd64.pyd" in tree.names()
        models = evaluate_artifact(tree, list_artifact(tree, et_manifest), et_manifest, routes, 120)
    evaluations = [m for m in models if isinstance(m, ConfigEvaluation)]
    assert len(evaluations) == 2
    for evaluation in evaluations:
        assert evaluation.failure is None and evaluation.found and evaluation.host_answers == ()
        assert evaluation.targets == ()
    diagnostics = lint(RULES, et_manifest, models, Selection(select=("SL1",)))
    found_empty = [d for d in diagnostics if d.code == "SL129"]
    assert len(found_empty) == 2 and all("offering nothing" in d.message for d in found_empty)
    _pinned(GOLDEN_DIR / "executorch-1.0.1-windows.txt", _render(diagnostics))
