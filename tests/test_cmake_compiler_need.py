"""A config is evaluated without the consumer's languages only when it cannot tell.

What enabling C and CXX changes is measured again here with the real CMakes of both
routes, for the host and the two foreign systems a wheel is evaluated as: every
variable it adds or changes must be one the scan knows (detected_names.py). The
modules a config may include without forcing the languages are read from those
CMakes. And configs that look at the compilers in ways their text does not show (a
dependency's search, a name made at run time, a module that compiles) still get a
consumer with languages, while a plain one gets its answer without any compiler
detection.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path
from typing import Any

import pytest
from shiplint.artifacts.archive import open_artifact
from shiplint.cmake_eval import compilers, evaluate_artifact, replay
from shiplint.cmake_eval.cmake_binary import identify
from shiplint.cmake_eval.compiler_need import ALLOWED_MODULES, named_in, read_by_package
from shiplint.cmake_eval.detected_names import DETECTED
from shiplint.cmake_eval.detected_variables import WATCHED
from shiplint.cmake_eval.languages import host_languages
from shiplint.cmake_eval.model import ConfigEvaluation
from shiplint.cmake_eval.run import RunOutcome, configure, platform_arguments
from shiplint.manifest.model import Component, ComponentVariable, LibraryKind, Manifest
from shiplint.platforms import Platform

from tests.builders import config_package, library, listing_as, manifest
from tests.material import NEW_CMAKE_VERSION, OLD_CMAKE_VERSION, cmake

BOTH = (OLD_CMAKE_VERSION, NEW_CMAKE_VERSION)
LINUX = Platform("linux", "x86_64")
SYSTEMS = (LINUX, Platform("macos", "arm64"), Platform("windows", "x86_64"))
_DUMP = """cmake_minimum_required(VERSION 3.21)
project(p ${SHIPLINT_LANGUAGES})
get_cmake_property(_shiplint_names VARIABLES)
foreach(_shiplint_name IN LISTS _shiplint_names)
  string(REPLACE "\\n" "\\\\n" _shiplint_value "${${_shiplint_name}}")
  file(APPEND "${CMAKE_BINARY_DIR}/variables.txt" "${_shiplint_name}=${_shiplint_value}\\n")
endforeach()
"""
# Differ between any two configure runs: the build directory's paths, the switch itself,
# the dump's own loop variables, and what the last regular expression matched.
_UNRELATED = re.compile(r"SHIPLINT_LANGUAGES|_shiplint_\w+|CMAKE_MATCH_\w+")


def _variables(version: str, source: Path, build: Path, arguments: list[str]) -> dict[str, str]:
    subprocess.run(
        [str(cmake(version)), "-S", str(source), "-B", str(build), *arguments],
        check=True,
        capture_output=True,
    )
    # Bytes, split at newlines only: a value may hold a carriage return (a regex's \r).
    text = (build / "variables.txt").read_bytes().decode("utf-8", "replace")
    pairs = (line.partition("=") for line in text.split("\n") if line)
    return {name: value.replace(str(build), "@build@") for name, _, value in pairs}


@pytest.mark.parametrize("version", BOTH)
@pytest.mark.parametrize("platform", SYSTEMS, ids=str)
def test_what_enabling_the_languages_changes_is_all_named_by_the_scan(
    tmp_path: Path, version: str, platform: Platform
) -> None:
    source = tmp_path / "src"
    source.mkdir()
    (source / "CMakeLists.txt").write_text(_DUMP, encoding="utf-8")
    languages = host_languages()
    assert languages == ("C", "CXX"), "the test machine has a C and C++ compiler"
    without = _variables(
        version,
        source,
        tmp_path / "none",
        ["-DSHIPLINT_LANGUAGES=NONE", *platform_arguments(platform, ())],
    )
    with_them = _variables(
        version,
        source,
        tmp_path / "languages",
        ["-DSHIPLINT_LANGUAGES=C;CXX", *platform_arguments(platform, languages)],
    )
    changed = {
        name
        for name in with_them.keys() | without.keys()
        if with_them.get(name) != without.get(name) and not _UNRELATED.fullmatch(name)
    }
    assert changed, "enabling C and CXX defines the compilers' variables"
    unnamed = sorted(name for name in changed if not DETECTED.fullmatch(name.encode()))
    assert unnamed == []
    assert sorted(changed - WATCHED) == []


@pytest.mark.parametrize("version", BOTH)
def test_the_modules_a_config_may_include_name_nothing_detected(version: str) -> None:
    binary = identify(str(cmake(version)))
    modules = next(Path(binary.path).resolve().parent.parent.glob("share/cmake-*/Modules"))
    for name in sorted(ALLOWED_MODULES):
        text = (modules / f"{name}.cmake").read_bytes()
        assert DETECTED.search(text) is None, name
        # The code alone: without the bracket comments (the module's documentation) and
        # the line comments.
        code = re.sub(rb"#\[(=*)\[.*?\]\1\]", b"", text, flags=re.DOTALL)
        code = b"\n".join(line for line in code.splitlines() if not line.lstrip().startswith(b"#"))
        assert (
            re.search(
                rb"^\s*(try_compile|try_run|enable_language|project)\s*\(", code, re.MULTILINE
            )
            is None
        )
        for included in re.findall(rb"\binclude\s*\(\s*([^)\s]+)", code):
            stem = Path(included.decode().replace("${CMAKE_CURRENT_LIST_DIR}/", "")).stem
            assert stem in ALLOWED_MODULES, (name, included)


def test_the_scan_names_what_the_detection_sets_and_nothing_else() -> None:
    assert named_in([("a.cmake", b"if(CMAKE_CXX_COMPILER_ID STREQUAL GNU)\nendif()\n")]) == (
        "CMAKE_CXX_COMPILER_ID in a.cmake"
    )
    assert named_in([("v.cmake", b'if("${CMAKE_SIZEOF_VOID_P}" STREQUAL "")\n')]) is not None
    assert named_in([("d.cmake", b'set(v "${CMAKE_${lang}_FLAGS}")\n')]) is not None
    plain = b'if(CMAKE_SYSTEM_NAME STREQUAL "Linux" AND CMAKE_VERSION VERSION_LESS 3.28)\n'
    plain += b'set(_root "${CMAKE_CURRENT_LIST_DIR}/../..")\nif(APPLE OR WIN32)\nendif()\n'
    assert named_in([("plain.cmake", plain)]) is None


@pytest.fixture
def user_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A user cache of the test's own: what was detected is read from it."""
    home = tmp_path / "xdg"
    monkeypatch.setenv("XDG_CACHE_HOME", str(home))
    return home


def _manifest() -> Manifest:
    return manifest(
        libraries=(library("pkg", LibraryKind.RUNTIME, components=("runtime",)),),
        components=(Component("runtime", False, None),),
        component_variables=(ComponentVariable("PKG_SEEN", "runtime", ()),),
    )


_PLAIN = """set(_root "${CMAKE_CURRENT_LIST_DIR}/../..")
add_library(pkg::runtime SHARED IMPORTED)
set_target_properties(pkg::runtime PROPERTIES IMPORTED_LOCATION "${_root}/lib/libpkg.so")
set(PKG_SEEN "@SEEN@")
set(pkg_FOUND TRUE)
"""


def _evaluate(
    tmp_path: Path,
    config: str,
    platform: Platform = LINUX,
    found: bool = True,
    version_file: str | None = None,
) -> list[ConfigEvaluation]:
    the_manifest = _manifest()
    root = config_package(tmp_path, config)
    if version_file is not None:
        (root / "pkg" / "share" / "cmake" / "pkg-config-version.cmake").write_text(version_file)
    tree = open_artifact(root)
    listing = listing_as(tree, the_manifest, platform)
    models = evaluate_artifact(tree, listing, the_manifest, [str(cmake(v)) for v in BOTH], 60.0)
    evaluations = [m for m in models if isinstance(m, ConfigEvaluation)]
    assert len(evaluations) == 2
    assert all(ev.failure is None and ev.found is found for ev in evaluations), [
        ev.failure for ev in evaluations
    ]
    return evaluations


def _seen(evaluation: ConfigEvaluation) -> str:
    values = {
        v.variable: ";".join(e.raw for e in v.entries) for v in evaluation.component_variables
    }
    return values["PKG_SEEN"]


def _detected_languages(version: str) -> list[tuple[str, ...]]:
    """The language sets a detection is kept for, for this CMake on the host."""
    binary = identify(str(cmake(version)))
    kept = []
    for languages in ((), host_languages()):
        arguments = platform_arguments(LINUX, languages)
        if compilers.load(compilers.inputs(binary, arguments, languages)) is not None:
            kept.append(languages)
    return kept


def test_a_config_that_cannot_tell_is_evaluated_without_any_compiler_detection(
    tmp_path: Path, user_cache: Path
) -> None:
    evaluations = _evaluate(tmp_path, _PLAIN.replace("@SEEN@", "plain"))
    assert [_seen(ev) for ev in evaluations] == ["plain", "plain"]
    assert [_detected_languages(v) for v in BOTH] == [[()], [()]]
    assert all(ev.languages == host_languages() for ev in evaluations)
    assert [ev.languages_because for ev in evaluations] == [None, None]


def _compiler_id(tmp_path: Path, version: str) -> str:
    """What a real consumer's project(x C CXX) reads as CMAKE_CXX_COMPILER_ID."""
    source = tmp_path / f"consumer-{version}"
    source.mkdir()
    (source / "CMakeLists.txt").write_text(
        'cmake_minimum_required(VERSION 3.21)\nproject(x C CXX)\nmessage("ID=${CMAKE_CXX_COMPILER_ID}")\n',
        encoding="utf-8",
    )
    run = subprocess.run(
        [str(cmake(version)), "-S", str(source), "-B", str(source / "build")],
        check=True,
        capture_output=True,
        text=True,
    )
    found: list[str] = re.findall(r"ID=(\S*)", run.stderr)
    return found[0]


@pytest.mark.parametrize(
    "body",
    [
        # A name made at run time: the file's text never names the variable.
        'set(_n "CMAKE_CX")\nstring(APPEND _n "X_COMPILER_ID")\n'
        'if(${_n} STREQUAL "@ID@")\n  set(PKG_SEEN "compiler")\nendif()\n',
        # A dependency searched for through a command named at run time, which the text
        # scan does not see: FindThreads needs C or CXX enabled.
        "include(CMakeFindDependencyMacro)\ncmake_language(CALL find_dependency Threads)\n"
        'if(TARGET Threads::Threads)\n  set(PKG_SEEN "compiler")\nendif()\n',
        # A module that compiles.
        "include(CheckIncludeFile)\ncheck_include_file(stdio.h PKG_HAS_STDIO)\n"
        'if(PKG_HAS_STDIO)\n  set(PKG_SEEN "compiler")\nendif()\n',
        # A name made of pieces and dereferenced twice: no text or argument shows it.
        'string(CONCAT _n "CMAKE_C" "XX_COMPILER_ID")\n'
        'if("${${_n}}" STREQUAL "@ID@")\n  set(PKG_SEEN "compiler")\nendif()\n',
    ],
    ids=[
        "name-made-at-run-time",
        "dependency-search",
        "module-that-compiles",
        "name-made-and-dereferenced",
    ],
)
def test_a_config_looking_at_the_compilers_unseen_gets_a_consumer_with_them(
    tmp_path: Path, user_cache: Path, body: str
) -> None:
    identity = _compiler_id(tmp_path, NEW_CMAKE_VERSION)
    config = _PLAIN.replace("@SEEN@", "none") + body.replace("@ID@", identity)
    evaluations = _evaluate(tmp_path, config)
    assert [_seen(ev) for ev in evaluations] == ["compiler", "compiler"]
    assert host_languages() in _detected_languages(NEW_CMAKE_VERSION)
    # Why, named by the artifact's members (never the run's temporary directory).
    for ev in evaluations:
        assert ev.languages_because is not None
        assert str(tmp_path) not in ev.languages_because
        assert "shiplint-cmake-" not in ev.languages_because


def test_a_config_naming_a_detected_variable_is_evaluated_with_the_languages_at_once(
    tmp_path: Path, user_cache: Path
) -> None:
    config = _PLAIN.replace('"@SEEN@"', '"${CMAKE_CXX_COMPILER_ID}"')
    evaluations = _evaluate(tmp_path, config)
    identity = _compiler_id(tmp_path, NEW_CMAKE_VERSION)
    assert [_seen(ev) for ev in evaluations] == [identity, identity]
    assert [ev.languages_because for ev in evaluations] == [
        "CMAKE_CXX_COMPILER_ID in pkg/share/cmake/pkg-config.cmake"
    ] * 2
    # Never first without them: no detection of the system alone was needed.
    assert [_detected_languages(v) for v in BOTH] == [[host_languages()], [host_languages()]]


def test_a_kept_run_without_languages_is_replayed_with_its_answer(
    tmp_path: Path, user_cache: Path
) -> None:
    config = _PLAIN.replace("@SEEN@", "plain")
    first = _evaluate(tmp_path / "first", config)
    again = _evaluate(tmp_path / "again", config)
    assert [ev.reused for ev in first] == [False, False]
    assert [ev.reused for ev in again] == [True, True]
    assert [_seen(ev) for ev in again] == ["plain", "plain"]
    assert any((user_cache / "shiplint" / "cmake-evaluations").iterdir())


def test_a_config_that_needed_the_languages_is_replayed_without_running_cmake(
    tmp_path: Path, user_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first run without languages is kept with what it showed, so a second
    evaluation goes straight to the kept run with them: no CMake starts."""
    config = _PLAIN.replace("@SEEN@", "none")
    config += 'string(CONCAT _n "CMAKE_C" "XX_COMPILER_LOADED")\n'
    config += 'if(${${_n}})\n  set(PKG_SEEN "compiler")\nendif()\n'
    first = _evaluate(tmp_path / "first", config)
    configured: list[Path] = []
    real = configure

    def counted(*args: Any, **kwargs: Any) -> RunOutcome:
        configured.append(args[1])
        return real(*args, **kwargs)

    monkeypatch.setattr(replay, "configure", counted)
    again = _evaluate(tmp_path / "again", config)
    assert [_seen(ev) for ev in first] == [_seen(ev) for ev in again] == ["compiler"] * 2
    assert [ev.reused for ev in again] == [True, True]
    assert configured == []


def _basic_version_file(tmp_path: Path, pointer_size: int) -> str:
    """What write_basic_package_version_file writes for a package built with
    `pointer_size`-byte pointers (CMake's own helper, run by the real CMake)."""
    script = tmp_path / "write.cmake"
    out = tmp_path / "pkg-config-version.cmake"
    script.write_text(
        "include(CMakePackageConfigHelpers)\n"
        f'write_basic_package_version_file("{out}" VERSION 1.0 COMPATIBILITY SameMajorVersion)\n'
    )
    subprocess.run(
        [str(cmake(NEW_CMAKE_VERSION)), f"-DCMAKE_SIZEOF_VOID_P={pointer_size}", "-P", str(script)],
        check=True,
        capture_output=True,
    )
    text = out.read_text()
    assert "CMAKE_SIZEOF_VOID_P" in text and f'"{pointer_size}" STREQUAL ""' in text
    return text


def test_a_basic_version_file_is_answered_without_languages_for_a_known_architecture(
    tmp_path: Path, user_cache: Path
) -> None:
    """The consumer's pointer size is the artifact's (the probe sets it, as the version
    file evaluation does): a generated version file needs no compiler detection."""
    version_file = _basic_version_file(tmp_path, 8)
    config = _PLAIN.replace("@SEEN@", "plain")
    evaluations = _evaluate(tmp_path / "a", config, version_file=version_file)
    assert [_seen(ev) for ev in evaluations] == ["plain", "plain"]
    assert [_detected_languages(v) for v in BOTH] == [[()], [()]]


@pytest.mark.parametrize("detected", [False, True], ids=["without-languages", "with-languages"])
def test_a_package_for_another_pointer_size_is_turned_away_as_a_consumer_would(
    tmp_path: Path, user_cache: Path, detected: bool
) -> None:
    """A 64-bit package in a wheel tagged for 32-bit x86: a consumer building for that
    platform gets PACKAGE_VERSION_UNSUITABLE, with the languages enabled or not."""
    config = _PLAIN.replace("@SEEN@", "${CMAKE_CXX_COMPILER_ID}" if detected else "plain")
    version_file = _basic_version_file(tmp_path, 8)
    x86 = Platform("linux", "x86")
    _evaluate(tmp_path / "x86", config, platform=x86, found=False, version_file=version_file)


def test_the_notes_of_watched_reads_count_only_the_package_files(tmp_path: Path) -> None:
    package = "/run/tree/pkg/share/cmake/pkg-config.cmake"
    probe = "/run/probe/request_0/CMakeLists.txt"
    notes = tmp_path / "watched.jsonl"
    assert read_by_package(notes, frozenset({package})) is None  # nothing was read
    note = '{"k":"read","name":"CMAKE_LIBRARY_ARCHITECTURE","file":"%s"}\n'
    notes.write_text(note % probe)
    assert read_by_package(notes, frozenset({package})) is None  # find_package's own read
    notes.write_text(note % probe + note % package)
    assert read_by_package(notes, frozenset({package})) == (
        f"CMAKE_LIBRARY_ARCHITECTURE read in {package}"
    )
    # Notes that are not the probe's own form, or too many, prove nothing.
    notes.write_text("not json\n")
    assert read_by_package(notes, frozenset({package})) is not None
    notes.write_bytes((note % probe).encode() * 60_000)
    assert read_by_package(notes, frozenset({package})) is not None


def test_a_package_that_searches_is_evaluated_with_the_languages_at_once(
    tmp_path: Path, user_cache: Path
) -> None:
    """A search command in the text: a run without languages would only show it and be
    made again, so none is made (no detection of the system alone is kept)."""
    config = _PLAIN.replace("@SEEN@", "none")
    config += "include(CMakeFindDependencyMacro)\nfind_dependency(Threads)\n"
    config += 'if(TARGET Threads::Threads)\n  set(PKG_SEEN "compiler")\nendif()\n'
    evaluations = _evaluate(tmp_path, config)
    assert [_seen(ev) for ev in evaluations] == ["compiler", "compiler"]
    assert [ev.languages_because for ev in evaluations] == [
        "find_dependency in pkg/share/cmake/pkg-config.cmake"
    ] * 2
    assert [_detected_languages(v) for v in BOTH] == [[host_languages()], [host_languages()]]
