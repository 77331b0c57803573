"""The probe against tiny real configs with real CMake: data read back, failures, safety."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import pytest
from shiplint.artifacts.archive import ArtifactTree, open_artifact
from shiplint.cmake_eval import evaluate_artifact
from shiplint.cmake_eval.model import ConfigEvaluation, FailureKind, MissingConfig
from shiplint.cmake_eval.results import cmake_list
from shiplint.diagnostics import Location
from shiplint.engine import Selection, lint
from shiplint.manifest.model import Component, LibraryKind, Manifest
from shiplint.platforms import Platform
from shiplint.registry import RULES

from tests.builders import config_package, library, listing_as, manifest
from tests.material import NEW_CMAKE_VERSION, OLD_CMAKE_VERSION, cmake

LINUX = Platform("linux", "x86_64")


def _manifest(**extra: object) -> Manifest:
    return manifest(
        libraries=(library("pkg", LibraryKind.RUNTIME, components=("runtime",)),),
        components=(Component("runtime", False, None),),
        **extra,
    )


def _evaluate_as(
    tree: ArtifactTree,
    platform: Platform,
    the_manifest: Manifest,
    cmakes: Sequence[str],
    timeout: float,
) -> Sequence[object]:
    """The evaluation of a placeholder tree (its empty files name no platform) as `platform`."""
    listing = listing_as(tree, the_manifest, platform)
    return evaluate_artifact(tree, listing, the_manifest, cmakes, timeout)


def _evaluate(
    tmp_path: Path,
    config: str,
    *,
    versions: tuple[str, ...] = (NEW_CMAKE_VERSION,),
    platform: Platform = LINUX,
    timeout: float = 60.0,
    the_manifest: Manifest | None = None,
) -> list[ConfigEvaluation]:
    tree = open_artifact(config_package(tmp_path, config))
    binaries = [str(cmake(v)) for v in versions]
    models = _evaluate_as(tree, platform, the_manifest or _manifest(), binaries, timeout)
    return [m for m in models if isinstance(m, ConfigEvaluation)]


def _evaluations(models: Sequence[object]) -> list[ConfigEvaluation]:
    """The evaluations among a run's models (a one-CMake run also says which route it missed)."""
    return [m for m in models if isinstance(m, ConfigEvaluation)]


TRICKY = 'a "quoted" \\back\\slash\ttab\nnew line'


@pytest.mark.parametrize("version", [OLD_CMAKE_VERSION, NEW_CMAKE_VERSION])
def test_values_come_back_exactly_as_cmake_holds_them(tmp_path: Path, version: str) -> None:
    from shiplint.manifest.model import Aggregate, Carries

    config = (
        "set(pkg_FOUND TRUE)\n"
        f"set(PKG_LIBRARIES [=[{TRICKY}]=] [[${{CMAKE_CURRENT_LIST_DIR}}/../../lib/libpkg.so]])\n"
        'set(PKG_LIBRARIES "${PKG_LIBRARIES};${CMAKE_CURRENT_LIST_DIR}/../../lib/libpkg.so")\n'
    )
    the_manifest = _manifest(aggregates=(Aggregate("PKG_LIBRARIES", Carries(), ()),))
    (ev,) = _evaluate(tmp_path, config, versions=(version,), the_manifest=the_manifest)
    assert ev.failure is None and ev.found
    (aggregate,) = ev.aggregates
    raws = [e.raw for e in aggregate.entries]
    # The bracket argument is not expanded; the quoted one is, and maps back to a member.
    assert raws == [TRICKY, "${CMAKE_CURRENT_LIST_DIR}/../../lib/libpkg.so", "pkg/lib/libpkg.so"]
    assert aggregate.entries[2].component == "runtime"
    assert ev.cmake_version == version


def test_cmake_list_splitting_keeps_escaped_semicolons_and_genexes() -> None:
    assert cmake_list("a;b\\;c;;$<$<CONFIG:Debug>:x;y>;d") == (
        "a",
        "b;c",
        "$<$<CONFIG:Debug>:x;y>",
        "d",
    )


@pytest.mark.parametrize(
    ("value", "items"),
    [
        ("", ()),
        (";", ()),
        ("a", ("a",)),
        (";a;;b;", ("a", "b")),
        ("/p/lib/libx.so;-lpthread", ("/p/lib/libx.so", "-lpthread")),
        # A lone `>` or `$` splits as any character does.
        ("a>b;$c;d<e", ("a>b", "$c", "d<e")),
        # Escaped or inside a generator expression, a `;` does not split.
        ("a\\;b;c", ("a;b", "c")),
        ("x;$<$<BOOL:1>:y;z>;w", ("x", "$<$<BOOL:1>:y;z>", "w")),
        ("a\\b;c", ("a\\b", "c")),
    ],
)
def test_cmake_list_items(value: str, items: tuple[str, ...]) -> None:
    assert cmake_list(value) == items


def test_imported_targets_and_their_properties_are_read(tmp_path: Path) -> None:
    config = (
        "set(pkg_FOUND TRUE)\n"
        "add_library(pkg::runtime SHARED IMPORTED)\n"
        "set_target_properties(pkg::runtime PROPERTIES IMPORTED_CONFIGURATIONS RELEASE\n"
        '  IMPORTED_LOCATION_RELEASE "${CMAKE_CURRENT_LIST_DIR}/../../lib/libpkg.so"\n'
        '  INTERFACE_LINK_LIBRARIES "m;dl"\n'
        '  INTERFACE_LINK_OPTIONS "LINKER:--push-state,--no-as-needed,'
        '${CMAKE_CURRENT_LIST_DIR}/../../lib/libpkg.so,--pop-state")\n'
    )
    (ev,) = _evaluate(tmp_path, config)
    (target,) = ev.targets
    assert target.name == "pkg::runtime" and target.component == "runtime"
    assert target.location == "pkg/lib/libpkg.so"
    assert target.link_libraries == ("m", "dl")
    assert target.link_options == (
        "LINKER:--push-state,--no-as-needed,pkg/lib/libpkg.so,--pop-state",
    )


def test_another_platform_is_evaluated_as_that_platform(tmp_path: Path) -> None:
    from shiplint.manifest.model import Aggregate, Carries

    config = (
        'set(pkg_FOUND TRUE)\nset(PKG_LIBRARIES "${CMAKE_SYSTEM_NAME}" "${APPLE}" "${WIN32}")\n'
    )
    the_manifest = _manifest(aggregates=(Aggregate("PKG_LIBRARIES", Carries(), ()),))
    for platform, expected in (
        (Platform("macos", "aarch64"), ["Darwin", "1"]),
        (Platform("windows", "x86_64"), ["Windows", "1"]),
    ):
        (ev,) = _evaluate(
            tmp_path / platform.os, config, platform=platform, the_manifest=the_manifest
        )
        assert [e.raw for e in ev.aggregates[0].entries] == expected


def test_a_config_error_is_reported_with_cmakes_message_and_location(tmp_path: Path) -> None:
    config = 'set(pkg_FOUND TRUE)\n\nmessage(FATAL_ERROR "pkg: the runtime is broken")\n'
    (ev,) = _evaluate(tmp_path, config)
    assert ev.failure is not None and ev.failure.kind is FailureKind.ERROR
    assert ev.failure.message == "pkg: the runtime is broken"
    assert ev.failure.location.render().endswith("/pkg-1.0!/pkg/share/cmake/pkg-config.cmake:3")
    (diagnostic,) = lint(RULES, _manifest(), [ev], Selection(select=("SL1",)))
    assert diagnostic.code == "SL111"
    assert "pkg: the runtime is broken" in diagnostic.message
    assert NEW_CMAKE_VERSION in diagnostic.message


def test_a_syntax_error_is_reported_with_its_line(tmp_path: Path) -> None:
    (ev,) = _evaluate(tmp_path, "set(pkg_FOUND TRUE)\nset(oops\n")
    assert ev.failure is not None
    assert ev.failure.location.member == "pkg/share/cmake/pkg-config.cmake"
    assert ev.failure.location.line is not None


def test_a_hanging_config_is_stopped_and_reported(tmp_path: Path) -> None:
    config = "execute_process(COMMAND sleep 120)\nset(pkg_FOUND TRUE)\n"
    (ev,) = _evaluate(tmp_path, config, timeout=2.0)
    assert ev.failure is not None and ev.failure.kind is FailureKind.TIMEOUT
    (diagnostic,) = lint(RULES, _manifest(), [ev], Selection(select=("SL1",)))
    assert diagnostic.code == "SL111" and "time limit" in diagnostic.message


def test_the_config_runs_in_a_reduced_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from shiplint.manifest.model import Aggregate, Carries

    monkeypatch.setenv("SHIPLINT_TEST_SECRET", "do-not-leak")
    config = (
        "set(pkg_FOUND TRUE)\n"
        'set(PKG_LIBRARIES "$ENV{HOME}" "$ENV{TMPDIR}" "x$ENV{SHIPLINT_TEST_SECRET}")\n'
        'file(WRITE "$ENV{HOME}/written-by-config" "x")\n'
    )
    the_manifest = _manifest(aggregates=(Aggregate("PKG_LIBRARIES", Carries(), ()),))
    (ev,) = _evaluate(tmp_path, config, the_manifest=the_manifest)
    home, tmp, secret = (e.raw for e in ev.aggregates[0].entries)
    # HOME and TMPDIR are inside the run's own scratch directory, which the models name
    # `<probe>/...` rather than by its random temporary path.
    assert (home, tmp) == ("<probe>/home", "<probe>/tmp")
    assert str(Path.home()) not in home
    assert secret == "x"


def test_component_requests_are_answered_in_one_run_even_when_the_config_aborts(
    tmp_path: Path,
) -> None:
    config = (
        "set(pkg_FOUND TRUE)\n"
        "foreach(c IN LISTS pkg_FIND_COMPONENTS)\n"
        '  if(NOT c STREQUAL "runtime")\n'
        '    message(FATAL_ERROR "pkg has no ${c}")\n'
        "  endif()\n"
        "endforeach()\n"
    )
    (ev,) = _evaluate(tmp_path, config)
    assert ev.failure is None
    requests = {r.component: r for r in ev.requests}
    assert requests["runtime"].found and requests["runtime"].fatal is None
    absent = requests["shiplint_absent_component"]
    assert absent.fatal == "pkg has no shiplint_absent_component"
    # The config aborted but left pkg_FOUND TRUE: a REQUIRED request would have stopped
    # with a message naming the component, so SL109 stays quiet.
    codes = [d.code for d in lint(RULES, _manifest(), [ev], Selection(select=("SL1",)))]
    assert "SL109" not in codes


def test_an_unusable_cmake_is_a_finding_not_a_crash(tmp_path: Path) -> None:
    tree = open_artifact(config_package(tmp_path, "set(pkg_FOUND TRUE)\n"))
    models = _evaluate_as(tree, LINUX, _manifest(), [str(tmp_path / "no-cmake")], 10)
    (ev,) = models
    assert isinstance(ev, ConfigEvaluation) and ev.failure is not None
    assert ev.failure.kind is FailureKind.CMAKE_UNUSABLE
    assert [d.code for d in lint(RULES, _manifest(), models, Selection(select=("SL1",)))] == [
        "SL111"
    ]


def test_an_artifact_without_a_config_is_reported(tmp_path: Path) -> None:
    root = tmp_path / "empty"
    (root / "pkg" / "lib").mkdir(parents=True)
    (root / "pkg" / "lib" / "libpkg.so").write_bytes(b"")
    models = _evaluate_as(open_artifact(root, "empty"), LINUX, _manifest(), ["cmake"], 10)
    assert models == [MissingConfig("empty", LINUX, ("pkg/share/cmake",), Location("empty"))]
    (finding,) = lint(RULES, _manifest(), models)
    assert finding.code == "SL114" and finding.location.path == "empty"
    # The location names the artifact; the message does not say it again.
    assert finding.message == "the artifact holds no pkg CMake config in pkg/share/cmake"


def test_the_system_cmake_is_used_by_name(tmp_path: Path) -> None:
    tree = open_artifact(config_package(tmp_path, "set(pkg_FOUND TRUE)\n"))
    models = _evaluate_as(tree, LINUX, replace(_manifest()), ["cmake"], 60)
    (ev,) = [m for m in models if isinstance(m, ConfigEvaluation)]
    assert ev.failure is None and ev.found and ev.cmake == "cmake"


def test_no_cmake_at_all_is_said_not_skipped(tmp_path: Path) -> None:
    tree = open_artifact(config_package(tmp_path, "set(pkg_FOUND TRUE)\n"))
    models = _evaluate_as(tree, LINUX, _manifest(), [], 10)
    (diagnostic,) = lint(RULES, _manifest(), models, Selection(select=("SL1",)))
    assert diagnostic.code == "SL111" and "no CMake binary is configured" in diagnostic.message


def test_modules_the_config_includes_from_elsewhere_in_the_package_are_real(
    tmp_path: Path,
) -> None:
    from shiplint.manifest.model import Aggregate, Carries

    config = (
        'include("${CMAKE_CURRENT_LIST_DIR}/../../lib/cmake/pkg-helpers.cmake")\n'
        "set(pkg_FOUND TRUE)\n"
    )
    root = config_package(tmp_path, config)
    (root / "pkg" / "lib" / "cmake").mkdir()
    (root / "pkg" / "lib" / "cmake" / "pkg-helpers.cmake").write_text(
        "set(PKG_LIBRARIES from-helper)\n", encoding="utf-8"
    )
    the_manifest = _manifest(aggregates=(Aggregate("PKG_LIBRARIES", Carries(), ()),))
    (ev,) = _evaluations(
        _evaluate_as(open_artifact(root), LINUX, the_manifest, [str(cmake(NEW_CMAKE_VERSION))], 60)
    )
    assert isinstance(ev, ConfigEvaluation)
    assert [e.raw for e in ev.aggregates[0].entries] == ["from-helper"]


def test_a_second_installed_copy_is_evaluated_in_the_same_run(tmp_path: Path) -> None:
    from shiplint.manifest.model import Aggregate, Carries

    config = (
        'set(pkg_FOUND TRUE)\nset(PKG_LIBRARIES "${CMAKE_CURRENT_LIST_DIR}/../../lib/libpkg.so")\n'
    )
    root = config_package(tmp_path, config)
    other = root / "pkg" / "lib" / "cmake" / "pkg"
    other.mkdir(parents=True)
    # Resolves the root one level short: the classic bug of a second install location.
    (other / "pkg-config.cmake").write_text(
        'set(pkg_FOUND TRUE)\nset(PKG_LIBRARIES "${CMAKE_CURRENT_LIST_DIR}/../libpkg.so")\n',
        encoding="utf-8",
    )
    base = _manifest(aggregates=(Aggregate("PKG_LIBRARIES", Carries(), ()),))
    the_manifest = replace(
        base,
        cmake=replace(base.cmake, installed_config_dirs=("pkg/share/cmake", "pkg/lib/cmake/pkg")),
    )
    (ev,) = _evaluations(
        _evaluate_as(open_artifact(root), LINUX, the_manifest, [str(cmake(NEW_CMAKE_VERSION))], 60)
    )
    assert isinstance(ev, ConfigEvaluation)
    assert ev.aggregates[0].components == ("runtime",)
    (alternate,) = ev.alternates
    assert alternate.config.member == "pkg/lib/cmake/pkg/pkg-config.cmake"
    # Not the first copy's answer again: find_package's cached <pkg>_DIR was forgotten.
    assert [e.raw for e in alternate.aggregates[0].entries] == ["pkg/lib/cmake/libpkg.so"]
    found = [d for d in lint(RULES, the_manifest, [ev], Selection(select=("SL115",)))]
    assert len(found) == 1
    assert found[0].location.member == "pkg/lib/cmake/pkg/pkg-config.cmake"
    assert "PKG_LIBRARIES carries nothing vs runtime" in found[0].message


def test_shipped_components_asked_together_answer_for_themselves(tmp_path: Path) -> None:
    """One request carries every shipped component; a refused one is told apart by its flag."""
    the_manifest = manifest(
        libraries=(
            library("pkg", LibraryKind.RUNTIME, components=("runtime",)),
            library("pkg_extra", components=("extra",)),
        ),
        components=(Component("runtime", False, None), Component("extra", False, None)),
    )
    config = (
        "set(pkg_FOUND TRUE)\n"
        "foreach(c IN LISTS pkg_FIND_COMPONENTS)\n"
        '  if(c STREQUAL "runtime")\n'
        "    set(pkg_${c}_FOUND TRUE)\n"
        "  else()\n"
        "    set(pkg_${c}_FOUND FALSE)\n"
        "    set(pkg_FOUND FALSE)\n"
        '    set(pkg_NOT_FOUND_MESSAGE "no component ${c}")\n'
        "  endif()\n"
        "endforeach()\n"
    )
    root = config_package(tmp_path, config)
    (root / "pkg" / "lib" / "libpkg_extra.so").write_bytes(b"")
    tree = open_artifact(root)
    models = _evaluate_as(tree, LINUX, the_manifest, [str(cmake(NEW_CMAKE_VERSION))], 60)
    (ev,) = [m for m in models if isinstance(m, ConfigEvaluation)]
    requests = {r.component: r for r in ev.requests}
    assert requests["runtime"].found and requests["runtime"].message is None
    assert not requests["extra"].found
    assert requests["extra"].message == "no component extra"
    refused = [d for d in lint(RULES, the_manifest, [ev], Selection(select=("SL110",)))]
    assert [d.subject.component for d in refused] == ["extra"]


@pytest.mark.parametrize(
    ("versions", "missing"),
    [
        ((NEW_CMAKE_VERSION,), ["paths"]),
        ((OLD_CMAKE_VERSION,), ["targets"]),
        ((OLD_CMAKE_VERSION, NEW_CMAKE_VERSION), []),
    ],
)
def test_a_route_no_configured_cmake_covers_is_said(
    tmp_path: Path, versions: tuple[str, ...], missing: list[str]
) -> None:
    tree = open_artifact(config_package(tmp_path, "set(pkg_FOUND TRUE)\n"))
    models = _evaluate_as(tree, LINUX, _manifest(), [str(cmake(v)) for v in versions], 60)
    diagnostics = lint(RULES, _manifest(), models, Selection(select=("SL116",)))
    assert [d.message.split(" ")[7] for d in diagnostics] == missing
    for d in diagnostics:
        assert d.severity.value == "warning" and "no configured CMake falls in it" in d.message
