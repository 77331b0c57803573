"""The link probe end to end on the synthetic package, with real g++ and both CMake routes.

The package is compiled once per session; each case lays out its own copy (the
config edited to show one defect) and probes it with CMake 3.24.3 (no imported
targets, wrapped paths) and 4.4.5 (imported targets with retention options).
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterable, Sequence
from pathlib import Path

import pytest
from shiplint.artifacts.archive import open_artifact
from shiplint.artifacts.inventory import read_inventory
from shiplint.cli import main
from shiplint.diagnostics import Diagnostic
from shiplint.engine import Selection, lint
from shiplint.manifest.model import Manifest
from shiplint.probes.link.model import ConsumerBuild, ConsumerKind, RunSite
from shiplint.probes.link.probe import ProbeOptions, probe_artifact
from shiplint.registry import RULES

from tests.link_probe_support import (
    CONFIG,
    MANIFEST_FILE,
    REGISTRATION_ONLY,
    compile_libraries,
    make_package,
    probepkg_manifest,
    strip_retention,
    with_bare_link_name,
    with_opt_in_in_aggregate,
)
from tests.material import NEW_CMAKE_VERSION, OLD_CMAKE_VERSION, cmake

MANIFEST = probepkg_manifest()
GOOD = CONFIG.read_text(encoding="utf-8")


@pytest.fixture(scope="session")
def libraries(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return compile_libraries(tmp_path_factory.mktemp("probepkg-libs"))


@pytest.fixture(scope="session")
def cmakes() -> tuple[str, ...]:
    return (str(cmake(OLD_CMAKE_VERSION)), str(cmake(NEW_CMAKE_VERSION)))


def probe(
    artifact: Path,
    cmakes: tuple[str, ...],
    manifest: Manifest = MANIFEST,
    only: Iterable[str] | None = None,
) -> list[object]:
    options = ProbeOptions(cmake=cmakes, only=frozenset(only) if only is not None else None)
    with open_artifact(artifact) as tree:
        return list(probe_artifact(tree, read_inventory(tree, manifest), manifest, options))


def diagnose(models: Sequence[object], manifest: Manifest = MANIFEST) -> list[Diagnostic]:
    return lint(RULES, manifest, models, Selection(select=("SL5",)))


def builds(models: list[object]) -> dict[tuple[str, str], ConsumerBuild]:
    return {
        (m.context.cmake_version, m.consumer.key): m for m in models if isinstance(m, ConsumerBuild)
    }


def package(tmp: Path, libraries: Path, config: str) -> Path:
    return make_package(libraries, tmp, config)


@pytest.fixture(scope="session")
def good(
    tmp_path_factory: pytest.TempPathFactory, libraries: Path, cmakes: tuple[str, ...]
) -> list[object]:
    return probe(package(tmp_path_factory.mktemp("good"), libraries, GOOD), cmakes)


@pytest.fixture(scope="session")
def stripped(
    tmp_path_factory: pytest.TempPathFactory, libraries: Path, cmakes: tuple[str, ...]
) -> list[object]:
    artifact = package(tmp_path_factory.mktemp("stripped"), libraries, strip_retention(GOOD))
    return probe(artifact, cmakes)


def test_good_package_builds_every_consumer_on_both_routes(good: list[object]) -> None:
    assert sorted(builds(good)) == [
        ("3.24.3", "aggregate:PROBEPKG_LIBRARIES"),
        ("3.24.3", "variable:PROBEPKG_EXTRA_LIBRARY"),
        ("4.4.5", "aggregate:PROBEPKG_LIBRARIES"),
        ("4.4.5", "target:extra"),
        ("4.4.5", "target:kernels"),
        ("4.4.5", "target:runtime"),
        ("4.4.5", "variable:PROBEPKG_EXTRA_LIBRARY"),
    ]
    for build in builds(good).values():
        assert build.failure is None, build.failure
        assert build.context.route == ("paths" if build.context.cmake_version < "4" else "targets")


def test_good_package_keeps_what_was_asked_for_and_nothing_else(good: list[object]) -> None:
    found = builds(good)
    for version in ("3.24.3", "4.4.5"):
        aggregate = found[(version, "aggregate:PROBEPKG_LIBRARIES")]
        assert "libprobepkg_kernels.so" in aggregate.needed
        assert "libprobepkg_extra.so" not in aggregate.needed
        # On the new route the registry listing links the runtime beside it.
        listed = ("probepkg",) if version == "4.4.5" else ()
        variable = found[(version, "variable:PROBEPKG_EXTRA_LIBRARY")]
        assert variable.libraries == ("probepkg_extra", *listed)
    assert "probepkg_kernels" in found[("4.4.5", "target:kernels")].libraries
    assert "probepkg_extra" in found[("4.4.5", "target:extra")].libraries


def test_good_package_reports_only_what_the_old_route_cannot_do(good: list[object]) -> None:
    diags = diagnose(good)
    assert {d.subject.cmake_version for d in diags} == {"3.24.3"}
    assert {d.location.member for d in diags} == {"probepkg/share/cmake/probepkg-config.cmake"}
    not_probed = sorted(d.message for d in diags if d.code == "SL506")
    assert len(not_probed) == 2
    assert "no-listing-on-route" in not_probed[0]
    assert "runtime, kernels" in not_probed[1]
    # Absolute run paths only on that route: both consumers run in place, neither deployed.
    relocation = {d.subject.variable: d.message for d in diags if d.code == "SL511"}
    assert set(relocation) == {"PROBEPKG_EXTRA_LIBRARY", "PROBEPKG_LIBRARIES"}
    for message in relocation.values():
        assert "cannot open shared object file" in message
        assert "its RUNPATH is [<probe>/package/probepkg/lib]" in message
        assert "none of its RUNPATH entries is relative to the binary" in message
    assert len(diags) == 4


def test_good_package_consumers_run_in_place_and_deployed_on_the_new_route(
    good: list[object],
) -> None:
    for (version, _), build in builds(good).items():
        assert [r.site for r in build.runs] == [RunSite.IN_PLACE, RunSite.DEPLOYED]
        assert build.runs[0].ok
        assert build.runs[1].ok == (version == "4.4.5")
        assert ("$ORIGIN" in build.runpath) == (version == "4.4.5")


def test_good_package_consumers_see_exactly_the_registrations_they_asked_for(
    good: list[object],
) -> None:
    seen = {key: b.registered for (v, key), b in builds(good).items() if v == "4.4.5"}
    assert seen == {
        "target:runtime": (),
        "target:kernels": ("kern::a", "kern::b"),
        "target:extra": ("extra::x",),
        "variable:PROBEPKG_EXTRA_LIBRARY": ("extra::x",),
        "aggregate:PROBEPKG_LIBRARIES": ("kern::a", "kern::b"),
    }
    # The old route has no imported target to compile the listing with (said by SL506).
    assert {b.registered for (v, _), b in builds(good).items() if v == "3.24.3"} == {None}


def test_a_library_the_linker_cannot_find_at_run_time_is_reported(
    tmp_path: Path, libraries: Path, cmakes: tuple[str, ...]
) -> None:
    # The wrapped path alone: a linker flag to CMake, so no run path is recorded for it.
    unrecorded = GOOD.replace('\n      "-Wl,-rpath,${_probepkg_lib}")', ")")
    assert unrecorded != GOOD
    artifact = package(tmp_path, libraries, unrecorded)
    diags = diagnose(probe(artifact, cmakes[:1], only={"variable:PROBEPKG_EXTRA_LIBRARY"}))
    (diag,) = [d for d in diags if d.code in ("SL510", "SL511")]
    assert diag.code == "SL510"
    assert "links but does not run where it was built (exited with status 127)" in diag.message
    assert "libprobepkg_extra.so: cannot open shared object file" in diag.message
    assert diag.message.endswith("its RUNPATH is []")


def test_registrations_a_consumer_did_not_ask_for_are_reported(
    tmp_path: Path, libraries: Path, cmakes: tuple[str, ...]
) -> None:
    artifact = package(tmp_path, libraries, with_opt_in_in_aggregate(GOOD))
    diags = diagnose(probe(artifact, cmakes[1:], only={"aggregate:PROBEPKG_LIBRARIES"}))
    (diag,) = [d for d in diags if d.code == "SL512"]
    assert "sees 1 operator of extra registered (extra::x)" in diag.message
    assert "it did not ask for extra" in diag.message
    assert (diag.subject.library, diag.subject.variable) == ("probepkg_extra", "PROBEPKG_LIBRARIES")


def test_removing_retention_is_reported_for_every_registration_only_component(
    stripped: list[object],
) -> None:
    diags = diagnose(stripped)
    for version in ("3.24.3", "4.4.5"):
        reported = {
            d.subject.component
            for d in diags
            if d.code in ("SL501", "SL503") and d.subject.cmake_version == version
        }
        assert reported == set(REGISTRATION_ONLY), version
    named = {(d.subject.cmake_version, d.subject.component) for d in diags if d.code == "SL501"}
    assert named == {("3.24.3", "extra"), ("4.4.5", "kernels"), ("4.4.5", "extra")}
    assert not [d for d in diags if d.code in ("SL502", "SL504")]
    # Running them shows the consequence: what they asked for is not registered.
    unregistered = {(d.subject.component, d.subject.variable) for d in diags if d.code == "SL512"}
    assert unregistered == {
        ("kernels", None),
        ("extra", None),
        ("extra", "PROBEPKG_EXTRA_LIBRARY"),
        ("kernels", "PROBEPKG_LIBRARIES"),
    }


def test_opt_in_in_the_aggregate_is_reported_on_both_routes(
    tmp_path: Path, libraries: Path, cmakes: tuple[str, ...]
) -> None:
    artifact = package(tmp_path, libraries, with_opt_in_in_aggregate(GOOD))
    diags = diagnose(probe(artifact, cmakes, only={"aggregate:PROBEPKG_LIBRARIES"}))
    sl502 = [(d.subject.cmake_version, d.subject.component) for d in diags if d.code == "SL502"]
    assert sorted(sl502) == [("3.24.3", "extra"), ("4.4.5", "extra")]


def test_a_consumer_that_does_not_link_reports_step_version_and_tail(
    tmp_path: Path, libraries: Path, cmakes: tuple[str, ...]
) -> None:
    artifact = package(tmp_path, libraries, with_bare_link_name(GOOD))
    diags = diagnose(probe(artifact, cmakes[1:], only={"target:kernels"}))
    (diag,) = [d for d in diags if d.code == "SL504"]
    assert "failed at the build step with CMake 4.4.5, route targets" in diag.message
    assert "probepkg_missing" in diag.message
    assert "shiplint-link-probe-" not in diag.message  # the temp dir is spelled <probe>


def test_a_config_error_is_reported_at_the_configure_step(
    tmp_path: Path, libraries: Path, cmakes: tuple[str, ...]
) -> None:
    broken = GOOD.replace("set(probepkg_FOUND TRUE)", 'message(FATAL_ERROR "probepkg is broken")')
    artifact = package(tmp_path, libraries, broken)
    diags = diagnose(probe(artifact, cmakes, only={"aggregate:PROBEPKG_LIBRARIES"}))
    failed = {(d.subject.cmake_version, d.code) for d in diags}
    assert failed == {("3.24.3", "SL504"), ("4.4.5", "SL504")}
    assert all("probepkg is broken" in d.message and "configure step" in d.message for d in diags)


def test_each_run_reads_the_artifact_afresh(
    tmp_path: Path, libraries: Path, cmakes: tuple[str, ...]
) -> None:
    artifact = package(tmp_path, libraries, GOOD)
    only = {"target:kernels"}
    assert diagnose(probe(artifact, cmakes[1:], only=only)) == []
    config = artifact / "probepkg" / "share" / "cmake" / "probepkg-config.cmake"
    config.write_text(strip_retention(GOOD), encoding="utf-8")
    assert [d.code for d in diagnose(probe(artifact, cmakes[1:], only=only))] == [
        "SL501",
        "SL512",
    ]


def test_nothing_is_left_behind(
    tmp_path: Path, libraries: Path, cmakes: tuple[str, ...], monkeypatch: pytest.MonkeyPatch
) -> None:
    artifact = package(tmp_path / "artifact", libraries, GOOD)
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    probe(artifact, cmakes[1:], only={"target:kernels"})
    assert list(scratch.iterdir()) == []


def test_no_compiler_is_a_diagnostic_not_a_skip(
    tmp_path: Path, libraries: Path, cmakes: tuple[str, ...], monkeypatch: pytest.MonkeyPatch
) -> None:
    artifact = package(tmp_path / "artifact", libraries, GOOD)
    empty = tmp_path / "empty-path"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    (diag,) = diagnose(probe(artifact, cmakes))
    assert diag.code == "SL505"
    assert "no C++ compiler" in diag.message


@pytest.mark.parametrize("configured", [(), ("/nonexistent/cmake",)])
def test_no_cmake_is_a_diagnostic_not_a_skip(
    tmp_path: Path, libraries: Path, configured: tuple[str, ...]
) -> None:
    artifact = package(tmp_path, libraries, GOOD)
    (diag,) = diagnose(probe(artifact, configured))
    assert diag.code == "SL505"
    assert "CMake" in diag.message


def test_an_artifact_without_its_config_is_a_diagnostic(
    tmp_path: Path, libraries: Path, cmakes: tuple[str, ...]
) -> None:
    artifact = package(tmp_path, libraries, GOOD)
    os.remove(artifact / "probepkg" / "share" / "cmake" / "probepkg-config.cmake")
    (diag,) = diagnose(probe(artifact, cmakes))
    assert diag.code == "SL505"
    assert "no probepkg config in probepkg/share/cmake" in diag.message


def test_an_artifact_with_nothing_to_link_says_so(
    tmp_path: Path, libraries: Path, cmakes: tuple[str, ...]
) -> None:
    artifact = package(tmp_path, libraries, GOOD)
    for lib in (artifact / "probepkg" / "lib").iterdir():
        lib.unlink()
    (diag,) = diagnose(probe(artifact, cmakes))
    assert (diag.code, diag.severity.value) == ("SL506", "info")
    assert "ships none of the manifest's runtime or component libraries" in diag.message


def test_consumer_kinds_cover_every_route(good: list[object]) -> None:
    kinds = {(b.context.route, b.consumer.kind) for b in builds(good).values()}
    assert ("paths", ConsumerKind.TARGET) not in kinds
    assert ("targets", ConsumerKind.TARGET) in kinds
    assert ("paths", ConsumerKind.VARIABLE) in kinds
    assert ("paths", ConsumerKind.AGGREGATE) in kinds


def test_cli_runs_the_probe_only_when_asked(
    tmp_path: Path,
    libraries: Path,
    cmakes: tuple[str, ...],
    capsys: pytest.CaptureFixture[str],
) -> None:
    artifact = package(tmp_path / "artifact", libraries, strip_retention(GOOD))
    argv = ["check", "--root", str(tmp_path), "--no-sources", "--manifest", str(MANIFEST_FILE)]
    argv += [f"--cmake={c}" for c in cmakes]
    argv += ["--select", "SL5", "--format", "json", str(artifact)]
    assert main(argv) == 0
    assert json.loads(capsys.readouterr().out)["diagnostics"] == []
    assert main([*argv, "--link-probe"]) == 1
    codes = {d["code"] for d in json.loads(capsys.readouterr().out)["diagnostics"]}
    assert codes == {"SL501", "SL503", "SL506", "SL512"}


def test_a_hung_configure_is_stopped_at_the_time_limit(
    tmp_path: Path, libraries: Path, cmakes: tuple[str, ...]
) -> None:
    hung = GOOD.replace(
        "cmake_minimum_required(VERSION 3.19)\n",
        'cmake_minimum_required(VERSION 3.19)\nexecute_process(COMMAND "${CMAKE_COMMAND}" -E sleep 30)\n',
    )
    artifact = package(tmp_path, libraries, hung)
    options = ProbeOptions(cmake=cmakes[1:], timeout=2)
    with open_artifact(artifact) as tree:
        (diag,) = diagnose(probe_artifact(tree, read_inventory(tree, MANIFEST), MANIFEST, options))
    assert diag.code == "SL504"
    assert "the find_package probe failed at the configure step with CMake 4.4.5" in diag.message
    assert "stopped after the 2 s time limit" in diag.message


def test_the_callers_build_environment_does_not_reach_the_consumer(
    tmp_path: Path, libraries: Path, cmakes: tuple[str, ...], monkeypatch: pytest.MonkeyPatch
) -> None:
    # CMake reads a toolchain file named by the environment (3.21+); this one retains
    # every library, which would hide the missing retention if it leaked in.
    toolchain = tmp_path / "toolchain.cmake"
    toolchain.write_text('add_link_options("LINKER:--no-as-needed")\n', encoding="utf-8")
    monkeypatch.setenv("CMAKE_TOOLCHAIN_FILE", str(toolchain))
    monkeypatch.setenv("CMAKE_PREFIX_PATH", str(tmp_path / "elsewhere"))
    artifact = package(tmp_path / "artifact", libraries, strip_retention(GOOD))
    diags = diagnose(probe(artifact, cmakes[1:], only={"target:kernels"}))
    assert [(d.code, d.subject.component) for d in diags] == [
        ("SL501", "kernels"),
        ("SL512", "kernels"),
    ]
