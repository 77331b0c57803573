"""Source mode on a synthetic package: nothing in the CMake evaluation is ExecuTorch's.

tests/fixtures/synthpkg has its own package name, namespace, layout, routes, an
opt-in component, an aggregate, a component variable and a `.cmake.in` source
using @PACKAGE_INIT@. The clean fixture is quiet on both routes; each broken copy
makes the rule for its defect fire, on the route the defect is on.
"""

from __future__ import annotations

import shutil
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import pytest
from shiplint.cmake_eval import evaluate_source, run
from shiplint.cmake_eval.model import AggregateAcrossRoutes, ConfigEvaluation, Mode
from shiplint.cmake_eval.run import Confinement
from shiplint.diagnostics import Diagnostic
from shiplint.engine import Selection, lint
from shiplint.manifest.load import load_manifest
from shiplint.manifest.model import Manifest
from shiplint.platforms import Platform
from shiplint.registry import RULES

from tests.material import NEW_CMAKE_VERSION, OLD_CMAKE_VERSION, cmake

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "synthpkg"
CONFIG = "cmake/synth-config.cmake.in"
HELPERS = "cmake/synth-components.cmake"


@pytest.fixture(scope="session")
def routes() -> list[str]:
    return [str(cmake(OLD_CMAKE_VERSION)), str(cmake(NEW_CMAKE_VERSION))]


@pytest.fixture(scope="session")
def clean(routes: list[str]) -> tuple[Manifest, Sequence[object]]:
    manifest = load_manifest(FIXTURE / "shiplint.yaml")
    return manifest, evaluate_source(FIXTURE, manifest, routes, 60)


def test_every_platform_and_route_is_evaluated(clean: tuple[Manifest, list[object]]) -> None:
    _, models = clean
    evaluations = [m for m in models if isinstance(m, ConfigEvaluation)]
    assert {(str(e.platform), e.route) for e in evaluations} == {
        ("linux", "legacy"),
        ("linux", "modern"),
        ("macos", "legacy"),
        ("macos", "modern"),
    }
    assert all(e.mode is Mode.SOURCE and e.failure is None and e.found for e in evaluations)
    assert all(e.config.path == CONFIG for e in evaluations)
    assert sum(isinstance(m, AggregateAcrossRoutes) for m in models) == 2


def test_the_clean_package_is_quiet(clean: tuple[Manifest, list[object]]) -> None:
    manifest, models = clean
    assert lint(RULES, manifest, models, Selection(select=("SL1",))) == []


def test_source_mode_publishes_what_the_manifest_places(
    clean: tuple[Manifest, list[object]],
) -> None:
    _, models = clean
    by = {(str(e.platform), e.route): e for e in models if isinstance(e, ConfigEvaluation)}
    modern = by[("linux", "modern")]
    assert [t.name for t in modern.targets] == [
        "synth::core",
        "synth::extra",
        "synth::gpu",
        "synth::ops",
    ]
    libs = modern.variable("SYNTH_LIBS")
    assert libs is not None and libs.components == ("core", "ops", "gpu")
    legacy_macos = by[("macos", "legacy")].variable("SYNTH_LIBS")
    assert legacy_macos is not None and legacy_macos.components == ("core", "ops")
    assert all(e.path and e.path.endswith(".dylib") for e in legacy_macos.entries)


def _broken(tmp_path: Path, routes: list[str], file: str, old: str, new: str) -> list[Diagnostic]:
    repo = tmp_path / "synthpkg"
    shutil.copytree(FIXTURE, repo)
    path = repo / file
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1, f"{file} no longer holds the text this test breaks"
    path.write_text(text.replace(old, new), encoding="utf-8")
    # Linux only: every defect below shows there, and it halves the runs.
    manifest = replace(load_manifest(repo / "shiplint.yaml"), platforms=(Platform("linux"),))
    return lint(
        RULES, manifest, evaluate_source(repo, manifest, routes, 60), Selection(select=("SL1",))
    )


def _on(diagnostics: list[Diagnostic]) -> set[tuple[str, str | None, str | None]]:
    return {(d.code, d.subject.component, d.subject.cmake_version) for d in diagnostics}


def test_opt_in_dropped_on_the_modern_route(tmp_path: Path, routes: list[str]) -> None:
    found = _broken(tmp_path, routes, CONFIG, "synth_extra OPT_IN)", "synth_extra)")
    assert ("SL101", "extra", NEW_CMAKE_VERSION) in _on(found)
    assert ("SL101", "extra", OLD_CMAKE_VERSION) not in _on(found)
    assert "SL103" in {d.code for d in found}


def test_opt_in_added_to_the_legacy_list(tmp_path: Path, routes: list[str]) -> None:
    found = _broken(
        tmp_path,
        routes,
        CONFIG,
        "synth_core synth_ops synth_gpu)",
        "synth_core synth_ops synth_gpu synth_extra)",
    )
    assert {
        (d.code, d.subject.component, d.subject.cmake_version) for d in found if d.code == "SL101"
    } == {("SL101", "extra", OLD_CMAKE_VERSION)}
    (sl101,) = [d for d in found if d.code == "SL101"]
    assert "SYNTH_LIBS" in sl101.message and "extra" in sl101.message


def test_a_component_left_out_of_the_legacy_list(tmp_path: Path, routes: list[str]) -> None:
    found = _broken(
        tmp_path, routes, CONFIG, "synth_core synth_ops synth_gpu)", "synth_core synth_ops)"
    )
    assert ("SL102", "gpu", OLD_CMAKE_VERSION) in _on(found)
    assert ("SL103", "gpu", f"{OLD_CMAKE_VERSION},{NEW_CMAKE_VERSION}") in _on(found)


def test_retention_dropped(tmp_path: Path, routes: list[str]) -> None:
    found = _broken(
        tmp_path,
        routes,
        HELPERS,
        '    set(${_out} "-Wl,--push-state,--no-as-needed,${_file},--pop-state" PARENT_SCOPE)',
        '    set(${_out} "${_file}" PARENT_SCOPE)',
    )
    sl108 = {(d.subject.library, d.subject.cmake_version) for d in found if d.code == "SL108"}
    assert sl108 == {
        ("synth_ops", OLD_CMAKE_VERSION),
        ("synth_gpu", OLD_CMAKE_VERSION),
        ("synth_extra", OLD_CMAKE_VERSION),
    }


def test_a_missing_component_refused_without_its_name(tmp_path: Path, routes: list[str]) -> None:
    found = _broken(
        tmp_path,
        routes,
        CONFIG,
        '"synth does not provide the required component(s): ${_synth_missing}"',
        '"synth is incomplete"',
    )
    assert ("SL126", "shiplint_absent_component", NEW_CMAKE_VERSION) in _on(found)
    assert ("SL126", "shiplint_absent_component", OLD_CMAKE_VERSION) in _on(found)
    assert "SL109" not in {code for code, _, _ in _on(found)}


def test_a_config_error_points_at_the_repository_file(tmp_path: Path, routes: list[str]) -> None:
    found = _broken(
        tmp_path,
        routes,
        HELPERS,
        "# Helpers of synth's package config.\n",
        '# Helpers of synth\'s package config.\nmessage(FATAL_ERROR "synth: broken helper")\n',
    )
    assert {d.code for d in found} == {"SL111"}
    for diagnostic in found:
        assert diagnostic.location.render() == f"{HELPERS}:2"
        assert "synth: broken helper" in diagnostic.message


def test_a_missing_config_source_is_reported(tmp_path: Path, routes: list[str]) -> None:
    repo = tmp_path / "synthpkg"
    shutil.copytree(FIXTURE, repo)
    (repo / CONFIG).unlink()
    manifest = replace(load_manifest(repo / "shiplint.yaml"), platforms=(Platform("linux"),))
    found = lint(
        RULES, manifest, evaluate_source(repo, manifest, routes, 60), Selection(select=("SL1",))
    )
    assert [d.code for d in found] == ["SL111", "SL111"]
    assert all(CONFIG in d.message for d in found)


def test_an_os_with_architectures_is_evaluated_per_architecture() -> None:
    from shiplint.cmake_eval.evaluate import manifest_platforms

    from tests.builders import library, manifest

    described = manifest(
        libraries=(
            library("a", platforms=("linux", "macos")),
            library("b", platforms=("linux-x86_64",)),
            library("c", platforms=("linux-aarch64", "windows")),
        )
    )
    assert [str(p) for p in manifest_platforms(described)] == [
        "linux-aarch64",
        "linux-x86_64",
        "macos",
        "windows",
    ]


def test_runs_that_generate_the_config_do_not_overlap(
    tmp_path: Path, routes: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A .cmake.in source is generated into the shared tree by each run: two CMakes at once
    would read each other's half-written file (seen as an empty aggregate, now and then).
    Each evaluation logs its start and end; serialised runs never interleave. The log is
    outside every evaluation's directory, so the runs are left unconfined to write it."""
    monkeypatch.setattr(run, "confinement", lambda: Confinement.NONE)
    repo = tmp_path / "synthpkg"
    shutil.copytree(FIXTURE, repo)
    log = tmp_path / "evaluations.log"
    config = repo / CONFIG
    config.write_text(
        f'file(APPEND "{log}" "start\\n")\n'
        'execute_process(COMMAND "${CMAKE_COMMAND}" -E sleep 0.2)\n'
        + config.read_text(encoding="utf-8")
        + f'file(APPEND "{log}" "end\\n")\n',
        encoding="utf-8",
    )
    manifest = load_manifest(repo / "shiplint.yaml")
    manifest = replace(manifest, platforms=(Platform("linux"),))
    evaluate_source(repo, manifest, routes, 60)
    events = log.read_text(encoding="utf-8").split()
    assert len(events) >= 4
    assert events == ["start", "end"] * (len(events) // 2)


def test_a_config_source_named_otherwise_is_installed_as_the_config(
    tmp_path: Path, routes: list[str]
) -> None:
    """A build that copies `synth-wheel-config.cmake.in` to `synth-config.cmake` (as
    ExecuTorch's setup.py does with its wheel config): source mode installs the source
    under the name find_package looks for, so the package is found as the wheel's is."""
    repo = tmp_path / "synthpkg"
    shutil.copytree(FIXTURE, repo)
    (repo / CONFIG).rename(repo / "cmake/synth-wheel-config.cmake.in")
    manifest_path = repo / "shiplint.yaml"
    text = manifest_path.read_text(encoding="utf-8")
    manifest_path.write_text(
        text.replace(
            f"config_source: {CONFIG}", "config_source: cmake/synth-wheel-config.cmake.in"
        ),
        encoding="utf-8",
    )
    manifest = replace(load_manifest(manifest_path), platforms=(Platform("linux"),))
    models = evaluate_source(repo, manifest, routes, 60)
    evaluations = [m for m in models if isinstance(m, ConfigEvaluation)]
    assert len(evaluations) == 2 and all(e.found and e.failure is None for e in evaluations)
    assert lint(RULES, manifest, models, Selection(select=("SL1",))) == []
