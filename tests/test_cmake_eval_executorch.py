"""The real ExecuTorch 1.5.1 wheels, evaluated by real CMake on both routes.

The SL1xx report on the four wheels is pinned in tests/golden/cmake_eval/ and each
finding is explained in docs/findings/cmake_eval.md. Set SHIPLINT_UPDATE_GOLDEN=1
to rewrite the pinned report after a deliberate change (then explain the diff).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import IO

import pytest
from shiplint.artifacts.archive import ArtifactTree, Rejected, open_artifact
from shiplint.artifacts.inventory import list_artifact
from shiplint.cmake_eval import evaluate_artifact
from shiplint.cmake_eval.model import ConfigEvaluation, EntryKind
from shiplint.diagnostics import Diagnostic, Location, Severity
from shiplint.engine import Selection, lint
from shiplint.manifest.load import load_manifest
from shiplint.manifest.model import Manifest
from shiplint.platforms import Platform
from shiplint.registry import RULES
from shiplint.report.model import Report
from shiplint.report.text import render as render_text

from tests.material import (
    EXAMPLE_MANIFEST,
    NEW_CMAKE_VERSION,
    OLD_CMAKE_VERSION,
    REPO,
    cmake,
    portable,
    wheel,
)

GOLDEN_DIR = Path(__file__).resolve().parent / "golden" / "cmake_eval"
GOLDEN = GOLDEN_DIR / "executorch-1.5.1.txt"
PLATFORMS = (
    "manylinux_2_28_x86_64",
    "manylinux_2_28_aarch64",
    "macosx_14_0_arm64",
    "win_amd64",
)
CONFIG = "executorch/share/cmake/executorch-config.cmake"
LIB_CONFIG = "executorch/lib/cmake/executorch/executorch-config.cmake"


@pytest.fixture(scope="session")
def et_manifest() -> Manifest:
    return load_manifest(EXAMPLE_MANIFEST)


@pytest.fixture(scope="session")
def both_routes() -> list[str]:
    return [str(cmake(OLD_CMAKE_VERSION)), str(cmake(NEW_CMAKE_VERSION))]


@pytest.fixture(scope="session")
def wheel_models(et_manifest: Manifest, both_routes: list[str]) -> dict[str, Sequence[object]]:
    out: dict[str, Sequence[object]] = {}
    for tag in PLATFORMS:
        with open_artifact(wheel("1.5.1", tag)) as tree:
            assert tree.platform is not None
            out[tag] = evaluate_artifact(
                tree, list_artifact(tree, et_manifest), et_manifest, both_routes, 120
            )
    return out


def _render(diagnostics: Sequence[Diagnostic]) -> str:
    """The text report a user sees for these findings."""
    return portable(render_text(Report(tuple(diagnostics), Severity.ERROR, REPO)))


def _evaluations(models: Sequence[object]) -> list[ConfigEvaluation]:
    return [m for m in models if isinstance(m, ConfigEvaluation)]


def test_every_wheel_is_evaluated_on_both_routes(wheel_models: dict[str, list[object]]) -> None:
    for tag, models in wheel_models.items():
        evaluations = _evaluations(models)
        assert [(e.cmake_version, e.route) for e in evaluations] == [
            (OLD_CMAKE_VERSION, "paths"),
            (NEW_CMAKE_VERSION, "targets"),
        ], tag
        assert all(e.failure is None for e in evaluations), tag
        assert all(e.config.member == CONFIG for e in evaluations)
        # The copy under lib/cmake/executorch is evaluated too, in the same run, and
        # finds the same package root (its marker search), so SL115 stays quiet.
        for evaluation in evaluations:
            (alternate,) = evaluation.alternates
            assert alternate.config.member == LIB_CONFIG
            assert alternate.found == evaluation.found
            assert alternate.targets == evaluation.targets
            assert alternate.aggregates == evaluation.aggregates


def _pinned(golden: Path, report: str) -> None:
    if os.environ.get("SHIPLINT_UPDATE_GOLDEN"):
        golden.parent.mkdir(parents=True, exist_ok=True)
        golden.write_text(report, encoding="utf-8")
    assert report == golden.read_text(encoding="utf-8")


def test_the_sl1_report_on_the_real_wheels_is_pinned(
    et_manifest: Manifest, wheel_models: dict[str, list[object]]
) -> None:
    models = [m for tag in PLATFORMS for m in wheel_models[tag]]
    _pinned(GOLDEN, _render(lint(RULES, et_manifest, models, Selection(select=("SL1",)))))


def test_the_1_4_1_wheel_config_offers_only_the_python_extension(
    et_manifest: Manifest, both_routes: list[str]
) -> None:
    """Before the shared runtime: the 1.5.1 manifest against the 1.4.1 wheel's 2 KB config.

    That config finds `_portable_lib<EXT_SUFFIX>` with the suffix `python3` gives. The
    `python3` it runs answers for the wheel (cp311, Linux x86_64: cmake_eval/target_host.py),
    whatever interpreter the host has, so the pinned report holds on any host.
    """
    with open_artifact(wheel("1.4.1", "manylinux_2_28_x86_64")) as tree:
        assert tree.platform is not None
        models = evaluate_artifact(
            tree, list_artifact(tree, et_manifest), et_manifest, both_routes, 120
        )
    diagnostics = lint(RULES, et_manifest, models, Selection(select=("SL1",)))
    assert [d.code for d in diagnostics].count("SL109") == 28
    for evaluation in _evaluations(models):
        assert evaluation.failure is None and evaluation.found
        assert [t.name for t in evaluation.targets] == ["_portable_lib"]
        assert evaluation.host_answers == ()
    _pinned(GOLDEN_DIR / "executorch-1.4.1.txt", _render(diagnostics))


def test_what_the_linux_config_publishes_on_each_route(
    wheel_models: dict[str, list[object]],
) -> None:
    old, new = _evaluations(wheel_models["manylinux_2_28_x86_64"])
    # 3.28+: imported targets; the opt-in kernels are a target but not in the aggregate.
    quantized = new.target("executorch::kernels_quantized")
    assert quantized is not None
    assert quantized.location == "executorch/lib/libexecutorch_kernels_quantized.so"
    assert any("--no-as-needed" in o for o in quantized.link_options)
    libraries = new.variable("EXECUTORCH_LIBRARIES")
    assert libraries is not None and "kernels_quantized" not in libraries.components
    assert all(e.kind is EntryKind.TARGET for e in libraries.entries)
    variable = new.variable("EXECUTORCH_QUANTIZED_KERNELS_LIBRARY")
    assert variable is not None and variable.text == "executorch::kernels_quantized"
    # Before 3.28: no targets, wrapped paths, the opt-in kernels only in their own variable.
    assert old.targets == ()
    libraries = old.variable("EXECUTORCH_LIBRARIES")
    assert libraries is not None and "kernels_quantized" not in libraries.components
    wrapped = [e for e in libraries.entries if e.component != "runtime"]
    assert wrapped and all(e.kind is EntryKind.PATH and e.retained for e in wrapped)
    variable = old.variable("EXECUTORCH_QUANTIZED_KERNELS_LIBRARY")
    assert variable is not None and variable.components == ("kernels_quantized",)
    assert variable.entries[0].retained


def test_the_macos_wheel_takes_the_macos_branches(wheel_models: dict[str, list[object]]) -> None:
    old, new = _evaluations(wheel_models["macosx_14_0_arm64"])
    assert new.platform == Platform("macos", "aarch64")
    mlx = new.target("executorch::backend_mlx")
    assert mlx is not None and mlx.location == "executorch/lib/libexecutorch_backend_mlx.dylib"
    assert not any("--no-as-needed" in o for o in mlx.link_options)
    libraries = old.variable("EXECUTORCH_LIBRARIES")
    assert libraries is not None
    assert {"backend_coreml", "backend_mlx", "kernels_torchao"} <= set(libraries.components)
    assert all(not e.raw.startswith("-Wl") for e in libraries.entries)


def test_the_windows_wheel_finds_nothing_to_link(wheel_models: dict[str, list[object]]) -> None:
    for evaluation in _evaluations(wheel_models["win_amd64"]):
        assert not evaluation.found
        assert evaluation.not_found_message is not None
        assert "no linkable library" in evaluation.not_found_message


class PatchedTree:
    """A real wheel with some members' bytes replaced (everything else read from the wheel)."""

    def __init__(self, tree: ArtifactTree, patches: dict[str, bytes]) -> None:
        self._tree = tree
        self._patches = patches
        self.label = f"patched-{tree.label}"
        self.shown = tree.shown
        self.kind = tree.kind
        self.platform = tree.platform
        self.platform_tag = tree.platform_tag

    @property
    def rejected(self) -> tuple[Rejected, ...]:
        return self._tree.rejected

    def names(self) -> tuple[str, ...]:
        return self._tree.names()

    def head(self, name: str, count: int) -> bytes:
        return self.read(name)[:count]

    def read(self, name: str, limit: int = 1 << 28) -> bytes:
        if name in self._patches:
            return self._patches[name]
        return self._tree.read(name, limit)

    def size(self, name: str) -> int:
        return len(self._patches[name]) if name in self._patches else self._tree.size(name)

    def copy_to(self, name: str, target: IO[bytes]) -> int:
        data = self.read(name)
        target.write(data)
        return len(data)

    def location(self, name: str | None = None) -> Location:
        return self._tree.location(name)


def _patched_findings(
    et_manifest: Manifest, both_routes: list[str], old: bytes, new: bytes
) -> list[Diagnostic]:
    with open_artifact(wheel("1.5.1", "manylinux_2_28_x86_64")) as tree:
        config = tree.read(CONFIG)
        assert config.count(old) == 1, "the 1.5.1 config no longer has the text this test edits"
        patched = config.replace(old, new)
        tree_with_patch = PatchedTree(tree, {CONFIG: patched, LIB_CONFIG: patched})
        assert tree.platform is not None
        models = evaluate_artifact(
            tree_with_patch, list_artifact(tree, et_manifest), et_manifest, both_routes, 120
        )
    return [d for d in lint(RULES, et_manifest, models, Selection(select=("SL101",)))]


def _assert_one_sl101_on(diagnostics: list[Diagnostic], version: str) -> None:
    assert len(diagnostics) == 1, [d.message for d in diagnostics]
    (diagnostic,) = diagnostics
    for text in ("kernels_quantized", "EXECUTORCH_LIBRARIES", version):
        assert text in diagnostic.message
    assert diagnostic.subject.component == "kernels_quantized"
    assert diagnostic.subject.variable == "EXECUTORCH_LIBRARIES"
    assert diagnostic.subject.cmake_version == version


def test_opt_in_removed_is_reported_on_the_targets_route(
    et_manifest: Manifest, both_routes: list[str]
) -> None:
    diagnostics = _patched_findings(
        et_manifest,
        both_routes,
        b"kernels_quantized executorch_kernels_quantized OPT_IN",
        b"kernels_quantized executorch_kernels_quantized",
    )
    _assert_one_sl101_on(diagnostics, NEW_CMAKE_VERSION)


def test_quantized_kernels_in_the_old_list_are_reported_on_the_paths_route(
    et_manifest: Manifest, both_routes: list[str]
) -> None:
    diagnostics = _patched_findings(
        et_manifest,
        both_routes,
        b"ITEMS libexecutorch_kernels_optimized\n",
        b"ITEMS libexecutorch_kernels_optimized\n          libexecutorch_kernels_quantized\n",
    )
    _assert_one_sl101_on(diagnostics, OLD_CMAKE_VERSION)


def test_the_system_cmake_agrees_with_the_pinned_cmake_of_its_route(
    et_manifest: Manifest, wheel_models: dict[str, list[object]]
) -> None:
    with open_artifact(wheel("1.5.1", "manylinux_2_28_x86_64")) as tree:
        assert tree.platform is not None
        models = evaluate_artifact(
            tree, list_artifact(tree, et_manifest), et_manifest, ["cmake"], 120
        )
    (system,) = _evaluations(models)
    assert system.failure is None and system.route is not None
    pinned = next(
        e for e in _evaluations(wheel_models["manylinux_2_28_x86_64"]) if e.route == system.route
    )

    def facts(e: ConfigEvaluation) -> tuple[object, ...]:
        return (e.found, e.aggregates, e.component_variables, e.targets, e.requests)

    assert facts(system) == facts(pinned)


def test_source_mode_on_the_real_config(
    et_manifest: Manifest, both_routes: list[str], tmp_path: Path
) -> None:
    """The 1.5.1 config as ExecuTorch's source (tools/cmake/executorch-wheel-config.cmake), with
    the tree synthesised from the manifest: the same real finding as on the wheel."""
    from shiplint.cmake_eval import evaluate_source

    with open_artifact(wheel("1.5.1", "manylinux_2_28_x86_64")) as tree:
        config = tree.read(CONFIG)
    assert et_manifest.cmake.config_source is not None
    source = tmp_path / et_manifest.cmake.config_source
    source.parent.mkdir(parents=True)
    source.write_bytes(config)
    models = evaluate_source(tmp_path, et_manifest, both_routes, 120)
    evaluations = _evaluations(models)
    assert sorted({str(e.platform) for e in evaluations}) == [
        "linux-x86_64",
        "macos-aarch64",
        "windows",
    ]
    assert all(e.failure is None for e in evaluations)
    found = {
        (d.code, d.location.path, d.subject.component, d.subject.cmake_version)
        for d in lint(RULES, et_manifest, models, Selection(select=("SL1",)))
    }
    path = et_manifest.cmake.config_source
    assert found == {
        ("SL102", path, "backend_qnn", OLD_CMAKE_VERSION),
        ("SL103", path, "backend_qnn", f"{OLD_CMAKE_VERSION},{NEW_CMAKE_VERSION}"),
    }
