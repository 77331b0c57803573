"""Source mode on a config that include()s the file install(EXPORT) writes.

tests/fixtures/exportpkg is the usual pair: `install(TARGETS ... EXPORT ExpoTargets)`,
`install(EXPORT ExpoTargets NAMESPACE expo:: ...)`, and a hand-written config whose
first line includes `ExpoTargets.cmake`. The repository has no such file; an install
has. Evaluated with real CMake on both routes' versions; the export file shiplint
writes is compared with the one a real build and install of the fixture writes.
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import pytest
from shiplint.cli import main
from shiplint.cmake_eval import evaluate_source
from shiplint.cmake_eval.exports import export_member, install_dir, plan_exports, write_exports
from shiplint.cmake_eval.model import ConfigEvaluation, ConfigModel
from shiplint.diagnostics import Diagnostic, Location
from shiplint.engine import Selection, lint
from shiplint.manifest.load import load_manifest
from shiplint.manifest.model import Manifest
from shiplint.platforms import Platform
from shiplint.registry import RULES
from shiplint.sources.interpret import walk_project
from shiplint.sources.model import CMakeProject, ExportInstall

from tests.material import NEW_CMAKE_VERSION, OLD_CMAKE_VERSION, cmake

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "exportpkg"
CONFIG = "cmake/expo-config.cmake"


@pytest.fixture(scope="session")
def cmakes() -> list[str]:
    return [str(cmake(OLD_CMAKE_VERSION)), str(cmake(NEW_CMAKE_VERSION))]


def _walk(repo: Path, manifest: Manifest) -> CMakeProject:
    return walk_project(repo, manifest.sources.cmake_roots, manifest.sources.exclude)


def _evaluate(repo: Path, cmakes: list[str], with_exports: bool = True) -> list[ConfigModel]:
    manifest = load_manifest(repo / "shiplint.yaml")
    project = _walk(repo, manifest) if with_exports else None
    return evaluate_source(repo, manifest, cmakes, 60, project)


def _sl1(repo: Path, models: Sequence[object]) -> list[Diagnostic]:
    return lint(RULES, load_manifest(repo / "shiplint.yaml"), models, Selection(select=("SL1",)))


def test_without_the_export_file_the_include_fails(cmakes: list[str]) -> None:
    """What source mode did before it wrote export files: the config cannot even start."""
    found = _sl1(FIXTURE, _evaluate(FIXTURE, cmakes, with_exports=False))
    assert {(d.code, d.location.path, d.location.line) for d in found} == {("SL111", CONFIG, 3)}
    assert len(found) == 4  # two CMakes, two platforms
    assert all("ExpoTargets.cmake" in d.message for d in found)


@pytest.fixture(scope="session")
def evaluated(cmakes: list[str]) -> list[ConfigModel]:
    return _evaluate(FIXTURE, cmakes)


def test_the_config_evaluates_clean_with_the_export_file(evaluated: list[ConfigModel]) -> None:
    assert _sl1(FIXTURE, evaluated) == []
    evaluations = [m for m in evaluated if isinstance(m, ConfigEvaluation)]
    assert {(str(e.platform), e.cmake_version) for e in evaluations} == {
        (p, v) for p in ("linux", "macos") for v in (OLD_CMAKE_VERSION, NEW_CMAKE_VERSION)
    }
    assert all(e.failure is None and e.found for e in evaluations)


def test_the_imported_targets_are_the_exported_ones(evaluated: list[ConfigModel]) -> None:
    """Namespace from install(EXPORT), type from the walk, a file per platform; a library
    the manifest does not place on a platform has no target there."""
    by = {
        (str(e.platform), e.cmake_version): e for e in evaluated if isinstance(e, ConfigEvaluation)
    }
    for version in (OLD_CMAKE_VERSION, NEW_CMAKE_VERSION):
        linux = by[("linux", version)]
        assert [(t.name, t.type, t.location) for t in linux.targets] == [
            ("expo::core", "SHARED_LIBRARY", "expo/lib/libexpo_core.so"),
            ("expo::expo_tool", "EXECUTABLE", "expo/bin/expo_tool"),
            # SHARED only under EXPO_BUILD_OPS, STATIC otherwise: shipped, so SHARED.
            ("expo::ops", "SHARED_LIBRARY", "expo/lib/libexpo_ops.so"),
            # EXPORT_NAME utility: the export names it so; its file keeps the target name.
            ("expo::utility", "STATIC_LIBRARY", "expo/lib/libutil.a"),
        ]
        libraries = linux.variable("EXPO_LIBRARIES")
        assert libraries is not None and libraries.components == ("core", "ops")
        macos = by[("macos", version)]
        assert [(t.name, t.location) for t in macos.targets] == [
            ("expo::core", "expo/lib/libexpo_core.dylib"),
            ("expo::expo_tool", "expo/bin/expo_tool"),
            ("expo::utility", "expo/lib/libutil.a"),
        ]
        refused = {r.component for r in macos.requests if r.refused}
        assert refused >= {"ops"}


def test_the_cli_run_is_clean_on_every_area(cmakes: list[str]) -> None:
    """The hook's own command: sources and config evaluation together, then SL1 alone
    (which walks the sources for the export declarations without the SL2 rules)."""
    base = ["check", "--root", str(FIXTURE), "--manifest", str(FIXTURE / "shiplint.yaml")]
    base += [arg for path in cmakes for arg in ("--cmake", path)]
    assert main(base) == 0
    assert main([*base, "--select", "SL1", "--fail-on", "info"]) == 0


def _broken(tmp_path: Path, file: str, old: str, new: str) -> Path:
    repo = tmp_path / "exportpkg"
    shutil.copytree(FIXTURE, repo)
    path = repo / file
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1, f"{file} no longer holds the text this test breaks"
    path.write_text(text.replace(old, new), encoding="utf-8")
    return repo


def _linux(repo: Path, cmakes: list[str]) -> list[Diagnostic]:
    manifest = replace(load_manifest(repo / "shiplint.yaml"), platforms=(Platform("linux"),))
    models = evaluate_source(repo, manifest, cmakes[-1:], 60, _walk(repo, manifest))
    return lint(RULES, manifest, models, Selection(select=("SL1",)))


@pytest.mark.parametrize(
    ("file", "old", "new", "line", "says"),
    [
        pytest.param(
            CONFIG, "/ExpoTargets.cmake", "/ExpoTarget.cmake", 3, "ExpoTarget.cmake",
            id="config-includes-a-file-no-install-writes",
        ),
        pytest.param(
            "CMakeLists.txt", "install(\n  EXPORT ExpoTargets", "message(\n  STATUS ExpoTargets",
            3, "ExpoTargets.cmake",
            id="export-set-never-installed",
        ),
        pytest.param(
            "CMakeLists.txt", "TARGETS core ops util\n", "TARGETS core ops\n", 24, "expo::utility",
            id="target-left-out-of-the-export-set",
        ),
    ],
)  # fmt: skip
def test_a_real_defect_still_fails(
    tmp_path: Path, cmakes: list[str], file: str, old: str, new: str, line: int, says: str
) -> None:
    """The export file is what the sources install, no more: a config that needs what
    they do not install fails as it would on a consumer's machine."""
    found = _linux(_broken(tmp_path, file, old, new), cmakes)
    assert [(d.code, d.location.path, d.location.line) for d in found] == [("SL111", CONFIG, line)]
    assert says in found[0].message


def test_the_written_export_matches_a_real_install(tmp_path: Path, cmakes: list[str]) -> None:
    """Build and install the fixture with real CMake and a compiler: the export file the
    install writes defines the same targets, with the same types and files, as ours."""
    if shutil.which("g++") is None and shutil.which("c++") is None:
        pytest.fail("this test needs a C++ compiler (g++ or c++) on PATH")
    build, prefix = tmp_path / "build", tmp_path / "install" / "expo"
    tool = cmakes[-1]
    configure = [tool, "-S", str(FIXTURE), "-B", str(build), "-DEXPO_BUILD_OPS=ON"]
    configure.append(f"-DCMAKE_INSTALL_PREFIX={prefix}")
    for step in (configure, [tool, "--build", str(build)], [tool, "--install", str(build)]):
        subprocess.run(step, check=True, capture_output=True)
    probe = tmp_path / "probe"
    probe.mkdir()
    (probe / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.21)\nproject(p NONE)\n"
        f'include("{prefix}/lib/cmake/expo/ExpoTargets.cmake")\n'
        "get_property(all DIRECTORY PROPERTY IMPORTED_TARGETS)\n"
        "foreach(t IN LISTS all)\n"
        "  get_target_property(type ${t} TYPE)\n"
        "  get_target_property(where ${t} IMPORTED_LOCATION_NOCONFIG)\n"
        '  message(STATUS "target ${t} ${type} ${where}")\n'
        "endforeach()\n",
        encoding="utf-8",
    )
    out = subprocess.run(
        [tool, "-S", str(probe), "-B", str(tmp_path / "probe-build")],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    installed = sorted(
        (name, kind, Path(where).relative_to(prefix.parent).as_posix())
        for line in out.splitlines()
        if line.startswith("-- target ")
        for name, kind, where in [line.removeprefix("-- target ").split(" ")]
    )
    manifest = load_manifest(FIXTURE / "shiplint.yaml")
    (export,) = plan_exports(
        _walk(FIXTURE, manifest), manifest, Platform("linux"), "expo/lib/cmake/expo"
    )
    ours = sorted(
        (t.name, "EXECUTABLE" if t.type == "EXECUTABLE" else f"{t.type}_LIBRARY", t.member or "")
        for t in export.targets
    )
    assert installed == ours
    assert export.member == "expo/lib/cmake/expo/ExpoTargets.cmake"


@pytest.mark.parametrize(
    ("destination", "expected"),
    [
        ("${CMAKE_INSTALL_LIBDIR}/cmake/x", "lib/cmake/x"),
        ("${CMAKE_INSTALL_PREFIX}/share/x", "share/x"),
        ("lib/./cmake", "lib/cmake"),
        (None, None),
        ("${MY_DIR}/cmake", None),  # a directory only a configure run knows
        ("$<CONFIG>/cmake", None),
        ("../outside", None),
        ("/opt/elsewhere", None),  # outside the install prefix
        ("<build>/lib", None),
    ],
)
def test_install_dir(destination: str | None, expected: str | None) -> None:
    assert install_dir(destination) == expected


def _export(destination: str | None, file: str = "T.cmake") -> ExportInstall:
    return ExportInstall("T", file, destination, "", Location("CMakeLists.txt", 1, 1), ())


@pytest.mark.parametrize(
    ("destination", "config_destination", "expected"),
    [
        # Installed side by side (the usual layout): beside the config, wherever it is laid.
        ("lib/cmake/p", "lib/cmake/p", "p/share/cmake/T.cmake"),
        # The install keeps them apart: so does the tree, relative to the config.
        ("lib/cmake/p/targets", "lib/cmake/p", "p/share/cmake/targets/T.cmake"),
        ("lib/cmake/q", "lib/cmake/p", "p/share/q/T.cmake"),
        # Either place unknown: beside the config.
        ("${MY_DIR}", "lib/cmake/p", "p/share/cmake/T.cmake"),
        ("lib/cmake/p", None, "p/share/cmake/T.cmake"),
        # Relative placement would leave the tree: beside the config.
        ("a", "w/x/y/z", "p/share/cmake/T.cmake"),
    ],
)
def test_export_member(destination: str, config_destination: str | None, expected: str) -> None:
    assert export_member(_export(destination), "p/share/cmake", config_destination) == expected


def test_windows_names_and_targets_the_walk_cannot_type(tmp_path: Path) -> None:
    """On Windows a shared library is a .dll under RUNTIME's DESTINATION; a target the walk
    never saw defined is exported as UNKNOWN without a file; an ALIAS is never exported, nor
    a target named by a variable only a configure run knows."""
    (tmp_path / "CMakeLists.txt").write_text(
        "add_library(dyn SHARED d.cpp)\nadd_library(arc STATIC a.cpp)\n"
        "add_library(iface INTERFACE)\nadd_library(al ALIAS arc)\n"
        "install(TARGETS dyn arc iface fetched al ${LATER} EXPORT T RUNTIME DESTINATION run "
        "ARCHIVE DESTINATION arch)\n"
        "install(EXPORT T NAMESPACE t:: DESTINATION cm)\n",
        encoding="utf-8",
    )
    manifest = replace(load_manifest(FIXTURE / "shiplint.yaml"), libraries=())
    (export,) = plan_exports(
        walk_project(tmp_path, (".",), ()), manifest, Platform("windows"), "expo/cm"
    )
    assert [(t.name, t.type, t.member) for t in export.targets] == [
        ("t::dyn", "SHARED", "expo/run/dyn.dll"),
        ("t::arc", "STATIC", "expo/arch/arc.lib"),
        ("t::iface", "INTERFACE", None),
        ("t::fetched", "UNKNOWN", None),
    ]
    assert export.member == "expo/cm/T.cmake"


def test_a_file_the_tree_holds_is_not_replaced(tmp_path: Path) -> None:
    """A manifest that installs its own stand-in (config_source_extras) keeps it."""
    manifest = load_manifest(FIXTURE / "shiplint.yaml")
    exports = plan_exports(_walk(FIXTURE, manifest), manifest, Platform("linux"), "cfg")
    (tmp_path / "cfg").mkdir()
    (tmp_path / "cfg" / "ExpoTargets.cmake").write_text("# mine\n", encoding="utf-8")
    write_exports(exports, tmp_path)
    assert (tmp_path / "cfg" / "ExpoTargets.cmake").read_text(encoding="utf-8") == "# mine\n"
    assert (tmp_path / "expo" / "lib" / "libutil.a").is_file()


def test_hostile_install_declarations_stay_inside_the_tree(tmp_path: Path) -> None:
    """The sources are input: no FILE, DESTINATION or OUTPUT_NAME writes outside the tree."""
    repo, tree = tmp_path / "repo", tmp_path / "work" / "tree"
    repo.mkdir()
    outside = tmp_path / "outside"
    (repo / "CMakeLists.txt").write_text(
        "add_library(a SHARED a.cpp)\n"
        "set_target_properties(a PROPERTIES OUTPUT_NAME ../../../../../outside/a)\n"
        "add_library(b STATIC b.cpp)\n"
        "install(TARGETS a b EXPORT T LIBRARY DESTINATION ../../.. ARCHIVE DESTINATION /etc)\n"
        f"install(EXPORT T FILE {outside}/abs.cmake DESTINATION x)\n"
        "install(EXPORT T FILE ../../../../outside/rel.cmake DESTINATION x)\n"
        "install(EXPORT T FILE T.txt DESTINATION x)\n"
        "install(EXPORT T FILE T.cmake DESTINATION ../../../../../outside)\n",
        encoding="utf-8",
    )
    manifest = replace(load_manifest(FIXTURE / "shiplint.yaml"), libraries=())
    exports = plan_exports(walk_project(repo, (".",), ()), manifest, Platform("linux"), "expo/c")
    write_exports(exports, tree)
    assert not outside.exists()
    written = sorted(p.relative_to(tree).as_posix() for p in tree.rglob("*") if p.is_file())
    # b's ARCHIVE DESTINATION is absolute, a's LIBRARY one leaves the prefix: CMake's defaults.
    assert written == ["expo/c/T.cmake", "expo/lib/libb.a"]
    (export,) = exports
    assert [(t.name, t.member) for t in export.targets] == [("a", None), ("b", "expo/lib/libb.a")]
