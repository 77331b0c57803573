"""Configs shaped like real packages other than ExecuTorch, evaluated with real CMake.

Each case is a small config written the way a real package writes it (OpenVINO's
nested targets and request names, MLX's un-namespaced target and baked-in Xcode
paths, TBB's targets that exist only when requested, a config that unsets its
per-component answers, one that needs a language for FindThreads), and a rule that
must stay quiet on the healthy form and speak on the broken one.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from shiplint.artifacts.archive import open_artifact
from shiplint.cmake_eval import evaluate_artifact
from shiplint.cmake_eval.languages import host_languages
from shiplint.cmake_eval.model import ConfigEvaluation, FailureKind
from shiplint.diagnostics import Diagnostic
from shiplint.engine import Selection, lint
from shiplint.manifest.model import Aggregate, Carries, Component, LibraryKind, Manifest
from shiplint.platforms import Platform
from shiplint.registry import RULES

from tests.builders import library, listing_as, manifest
from tests.material import NEW_CMAKE_VERSION, OLD_CMAKE_VERSION, cmake

LINUX = Platform("linux", "x86_64")
BOTH = (OLD_CMAKE_VERSION, NEW_CMAKE_VERSION)

# A frontend library with an imported target two levels deep, requested as ONNX.
_NESTED = """
set(_root "${CMAKE_CURRENT_LIST_DIR}/../..")
add_library(pkg::runtime SHARED IMPORTED)
set_target_properties(pkg::runtime PROPERTIES IMPORTED_LOCATION "${_root}/lib/libpkg.so")
if(NOT "@OMIT@" STREQUAL "onnx")
  add_library(pkg::frontend::onnx SHARED IMPORTED)
  set_target_properties(pkg::frontend::onnx PROPERTIES
    IMPORTED_LOCATION "${_root}/lib/libpkg_onnx.so")
endif()
set(pkg_ONNX_FOUND TRUE)
set(pkg_Runtime_FOUND TRUE)
set(PKG_LIBRARIES @AGGREGATE@)
foreach(_c IN LISTS pkg_FIND_COMPONENTS)
  if(NOT pkg_${_c}_FOUND)
    set(pkg_FOUND FALSE)
    set(pkg_NOT_FOUND_MESSAGE "pkg has no component ${_c}")
  endif()
endforeach()
# OpenVINO unsets its per-component answers before returning.
unset(pkg_ONNX_FOUND)
"""


def _tree(tmp_path: Path, config: str, libraries: tuple[str, ...]) -> Path:
    root = tmp_path / "pkg-1.0"
    (root / "pkg" / "share" / "cmake").mkdir(parents=True)
    (root / "pkg" / "lib").mkdir(parents=True)
    for name in libraries:
        (root / "pkg" / "lib" / name).write_bytes(b"")
    (root / "pkg" / "share" / "cmake" / "pkg-config.cmake").write_text(config, encoding="utf-8")
    return root


def _nested_manifest(**extra: object) -> Manifest:
    return manifest(
        libraries=(
            library("pkg", LibraryKind.RUNTIME, components=("runtime",)),
            library("pkg_onnx", components=("onnx",)),
        ),
        components=(
            Component("runtime", False, None, request="Runtime"),
            Component("onnx", True, None, target="pkg::frontend::onnx", request="ONNX"),
        ),
        aggregates=(Aggregate("PKG_LIBRARIES", Carries(excluded=("onnx",)), ()),),
        **extra,
    )


def _run(
    tmp_path: Path,
    config: str,
    the_manifest: Manifest,
    libraries: tuple[str, ...] = ("libpkg.so", "libpkg_onnx.so"),
    versions: tuple[str, ...] = BOTH,
    platform: Platform = LINUX,
) -> tuple[list[ConfigEvaluation], list[Diagnostic]]:
    tree = open_artifact(_tree(tmp_path, config, libraries))
    listing = listing_as(tree, the_manifest, platform)
    models = evaluate_artifact(tree, listing, the_manifest, [str(cmake(v)) for v in versions], 60.0)
    evaluations = [m for m in models if isinstance(m, ConfigEvaluation)]
    # SL116 (a route left unevaluated) is about the run, not the config under test.
    return evaluations, lint(
        RULES, the_manifest, models, Selection(select=("SL1",), ignore=("SL116",))
    )


def _nested(omit: str = "", aggregate: str = "pkg::runtime") -> str:
    return _NESTED.replace("@OMIT@", omit).replace("@AGGREGATE@", aggregate)


def test_nested_targets_and_request_spellings_are_read_as_the_manifest_names_them(
    tmp_path: Path,
) -> None:
    evaluations, diagnostics = _run(tmp_path, _nested(), _nested_manifest())
    assert [d.code for d in diagnostics] == []
    for ev in evaluations:
        assert ev.failure is None and ev.found
        target = ev.target("pkg::frontend::onnx")
        assert target is not None and target.component == "onnx"
        onnx = ev.request("onnx")
        # Asked as ONNX; the config unset pkg_ONNX_FOUND, so it was asked again alone.
        assert onnx is not None and onnx.spelling == "ONNX" and onnx.found and onnx.retried


def test_a_missing_nested_target_is_reported_by_its_full_name(tmp_path: Path) -> None:
    _, diagnostics = _run(tmp_path, _nested(omit="onnx"), _nested_manifest())
    sl105 = [d for d in diagnostics if d.code == "SL105"]
    assert len(sl105) == len(BOTH)
    assert all(d.subject.target == "pkg::frontend::onnx" for d in sl105)
    assert all("pkg/lib/libpkg_onnx.so ships (component onnx)" in d.message for d in sl105)


@pytest.mark.parametrize(
    "entry", ["pkg::frontend::onnx", "${CMAKE_CURRENT_LIST_DIR}/../../lib/libpkg_onnx.so"]
)
def test_an_opt_in_component_pulled_into_the_aggregate_is_caught(
    tmp_path: Path, entry: str
) -> None:
    """By its nested target (no longer cut at the namespace and lost) or by its file."""
    config = _nested(aggregate=f"pkg::runtime {entry}")
    _, diagnostics = _run(tmp_path, config, _nested_manifest(), versions=(NEW_CMAKE_VERSION,))
    (finding,) = [d for d in diagnostics if d.code == "SL101"]
    assert finding.subject.component == "onnx"
    assert finding.subject.variable == "PKG_LIBRARIES"
    assert "PKG_LIBRARIES carries the opt-in component onnx" in finding.message


def test_a_target_importing_the_library_under_another_name_counts(tmp_path: Path) -> None:
    """Matched by IMPORTED_LOCATION: the library has its target, only the name differs."""
    config = _nested().replace("pkg::frontend::onnx", "pkg::onnx_frontend")
    _, diagnostics = _run(tmp_path, config, _nested_manifest(), versions=(NEW_CMAKE_VERSION,))
    assert [d.code for d in diagnostics if d.code == "SL105"] == []


def test_an_un_namespaced_target_is_a_component(tmp_path: Path) -> None:
    config = (
        "add_library(mlx SHARED IMPORTED)\n"
        'set_target_properties(mlx PROPERTIES IMPORTED_LOCATION "${CMAKE_CURRENT_LIST_DIR}'
        '/../../lib/libmlx.so")\n'
        "set(MLX_LIBRARIES mlx)\nset(pkg_FOUND TRUE)\n"
    )
    the_manifest = manifest(
        libraries=(library("mlx", LibraryKind.RUNTIME, components=("mlx",)),),
        components=(Component("mlx", False, None, target="mlx"),),
        aggregates=(Aggregate("MLX_LIBRARIES", Carries(only=("mlx",)), ()),),
    )
    the_manifest = replace(the_manifest, cmake=replace(the_manifest.cmake, namespace=""))
    evaluations, diagnostics = _run(
        tmp_path, config, the_manifest, libraries=("libmlx.so",), versions=(NEW_CMAKE_VERSION,)
    )
    # Like MLX's, this config accepts any component request (SL109, tested elsewhere).
    assert [d.code for d in diagnostics if d.code != "SL109"] == []
    (ev,) = evaluations
    assert ev.aggregates[0].components == ("mlx",)


# TBB's shape: a component's target exists only when that component is requested.
_ON_REQUEST = """
set(pkg_FOUND TRUE)
add_library(pkg::runtime SHARED IMPORTED)
set_target_properties(pkg::runtime PROPERTIES
  IMPORTED_LOCATION "${CMAKE_CURRENT_LIST_DIR}/../../lib/libpkg.so")
foreach(_c IN LISTS pkg_FIND_COMPONENTS)
  if(_c STREQUAL "bind" AND NOT "@BROKEN@")
    add_library(pkg::bind SHARED IMPORTED)
    set_target_properties(pkg::bind PROPERTIES
      IMPORTED_LOCATION "${CMAKE_CURRENT_LIST_DIR}/../../lib/libpkg_bind.so")
    set(PKG_BIND_LIBRARY pkg::bind)
  endif()
  if(_c STREQUAL "bind" OR _c STREQUAL "runtime")
    set(pkg_${_c}_FOUND TRUE)
  else()
    set(pkg_FOUND FALSE)
    set(pkg_NOT_FOUND_MESSAGE "pkg has no component ${_c}")
  endif()
endforeach()
"""


def _on_request_manifest() -> Manifest:
    from shiplint.manifest.model import ComponentVariable

    return manifest(
        libraries=(
            library("pkg", LibraryKind.RUNTIME, components=("runtime",)),
            library("pkg_bind", components=("bind",)),
        ),
        components=(
            Component("runtime", False, None),
            Component("bind", True, None, only_on_request=True),
        ),
        component_variables=(ComponentVariable("PKG_BIND_LIBRARY", "bind", ()),),
    )


def test_a_component_published_only_on_request_is_read_from_its_request(
    tmp_path: Path,
) -> None:
    config = _ON_REQUEST.replace("@BROKEN@", "")
    libraries = ("libpkg.so", "libpkg_bind.so")
    evaluations, diagnostics = _run(
        tmp_path, config, _on_request_manifest(), libraries, versions=(NEW_CMAKE_VERSION,)
    )
    assert [d.code for d in diagnostics] == [], [d.message for d in diagnostics]
    (ev,) = evaluations
    assert ev.target("pkg::bind") is None  # not in the plain find_package
    assert ev.requested_target("bind", "pkg::bind") is not None


def test_a_request_that_publishes_no_target_is_reported(tmp_path: Path) -> None:
    config = _ON_REQUEST.replace("@BROKEN@", "1")
    libraries = ("libpkg.so", "libpkg_bind.so")
    _, diagnostics = _run(
        tmp_path, config, _on_request_manifest(), libraries, versions=(NEW_CMAKE_VERSION,)
    )
    by_code = {d.code: d for d in diagnostics}
    assert "when bind is requested" in by_code["SL105"].message
    assert by_code["SL104"].subject.variable == "PKG_BIND_LIBRARY"


def test_a_config_needing_a_language_evaluates_like_a_consumer_with_one(tmp_path: Path) -> None:
    """find_dependency(Threads) stops a probe with no language; a consumer has C and CXX."""
    assert host_languages() == ("C", "CXX"), "the test machine has a C and C++ compiler"
    config = (
        "include(CMakeFindDependencyMacro)\nfind_dependency(Threads)\n"
        'if(NOT CMAKE_CXX_COMPILER_VERSION)\n  message(FATAL_ERROR "no C++ compiler")\nendif()\n'
        "set(pkg_FOUND TRUE)\n"
    )
    the_manifest = manifest(
        libraries=(library("pkg", LibraryKind.RUNTIME, components=("runtime",)),),
        components=(Component("runtime", False, None, target="Threads::Threads"),),
    )
    evaluations, diagnostics = _run(tmp_path, config, the_manifest, libraries=("libpkg.so",))
    assert all(ev.failure is None and ev.found for ev in evaluations)
    assert [d.code for d in diagnostics if d.code == "SL111"] == []


@pytest.mark.parametrize("platform", [Platform("macos", "arm64"), Platform("windows", "x86_64")])
def test_another_platforms_config_also_gets_the_languages(
    tmp_path: Path, platform: Platform
) -> None:
    config = 'if(NOT CMAKE_CXX_COMPILER_LOADED)\n  message(FATAL_ERROR "no CXX")\nendif()\n'
    config += "set(pkg_FOUND TRUE)\n"
    the_manifest = manifest(
        libraries=(library("pkg", LibraryKind.RUNTIME, components=("runtime",)),),
        components=(Component("runtime", False, None),),
    )
    evaluations, _ = _run(tmp_path, config, the_manifest, libraries=(), platform=platform)
    assert all(ev.failure is None and ev.found for ev in evaluations), [
        ev.failure for ev in evaluations
    ]


def test_a_failure_without_a_compiler_is_not_blamed_on_the_package() -> None:
    from shiplint.checks.config_eval import config_evaluation_failed
    from shiplint.cmake_eval.model import Failure, Mode
    from shiplint.diagnostics import Location

    failure = Failure(FailureKind.ERROR, "FindThreads only works if either C or CXX language is enabled",
                      Location("x.whl!/pkg/share/cmake/pkg-config.cmake", 3))  # fmt: skip
    ev = ConfigEvaluation(
        mode=Mode.ARTIFACT, label="x.whl", platform=LINUX, cmake="cmake", cmake_version="4.4.5",
        route=None, config=failure.location, shipped=(), failure=failure, found=False,
        not_found_message=None, aggregates=(), component_variables=(), targets=(), requests=(),
        seconds=0.0, languages=(),
    )  # fmt: skip
    the_manifest = manifest()
    (without,) = config_evaluation_failed(the_manifest, ev)
    assert "no C or C++ compiler is on PATH" in without.message
    assert "Install a C and C++ compiler" in (without.hint or "")
    (with_compiler,) = config_evaluation_failed(the_manifest, replace(ev, languages=("C", "CXX")))
    assert "no C or C++ compiler" not in with_compiler.message
    assert "project(<name> C CXX)" in (with_compiler.hint or "")


_XCODE = (
    "/Applications/Xcode_26.6.app/Contents/Developer/SDKs/MacOSX.sdk/Frameworks/Metal.framework"
)


@pytest.mark.parametrize(
    ("link", "fires"),
    [
        # A library by path stops the consumer's build where it is missing (SL117); a
        # framework by path becomes -F<dir> -framework <Name> and links (SL128, warning).
        (_XCODE, "SL128"),
        (_XCODE + "/Metal", "SL128"),
        ("/usr/local/lib/libfoo.so", "SL117"),
        ("-framework Metal", None),
        # A path the config found on the consumer's machine is not written in the config.
        ("${CMAKE_COMMAND}", None),
        ("${CMAKE_CURRENT_LIST_DIR}/../../lib/libpkg.so", None),
    ],
)
def test_a_link_interface_naming_a_build_machine_path(
    tmp_path: Path, link: str, fires: str | None
) -> None:
    config = (
        "add_library(pkg::runtime SHARED IMPORTED)\n"
        "set_target_properties(pkg::runtime PROPERTIES\n"
        '  IMPORTED_LOCATION "${CMAKE_CURRENT_LIST_DIR}/../../lib/libpkg.so"\n'
        f'  INTERFACE_LINK_LIBRARIES "{link}")\nset(pkg_FOUND TRUE)\n'
    )
    the_manifest = manifest(
        libraries=(library("pkg", LibraryKind.RUNTIME, components=("runtime",)),),
        components=(Component("runtime", False, None),),
    )
    _, diagnostics = _run(
        tmp_path, config, the_manifest, libraries=("libpkg.so",), versions=(NEW_CMAKE_VERSION,)
    )
    found = [d for d in diagnostics if d.code in ("SL117", "SL128")]
    if fires:
        (finding,) = found
        assert finding.code == fires
        assert finding.subject.target == "pkg::runtime" and link in finding.message
    else:
        assert found == []


@pytest.mark.parametrize(
    ("entry", "fires"),
    [
        ("pkg::frontend::onnx_typo", True),  # the package's namespace, no such component
        ("${CMAKE_CURRENT_LIST_DIR}/../../lib/libpkg_extra.so", True),  # a file it ships
        ("pkg::frontend::onnx", False),
        ("Threads::Threads", False),  # another package's target
        ("-Wl,--as-needed", False),
    ],
)
def test_an_aggregate_entry_that_resolves_to_no_component_is_reported(
    tmp_path: Path, entry: str, fires: bool
) -> None:
    the_manifest = replace(
        _nested_manifest(),
        aggregates=(Aggregate("PKG_LIBRARIES", Carries(), ()),),
    )
    _, diagnostics = _run(
        tmp_path,
        _nested(aggregate=f"pkg::runtime {entry}"),
        the_manifest,
        libraries=("libpkg.so", "libpkg_onnx.so", "libpkg_extra.so"),
        versions=(NEW_CMAKE_VERSION,),
    )
    sl118 = [d for d in diagnostics if d.code == "SL118"]
    if fires:
        (finding,) = sl118
        assert finding.subject.variable == "PKG_LIBRARIES"
        assert "resolves to no component of the manifest" in finding.message
    else:
        assert sl118 == []


@pytest.mark.parametrize(
    ("definition", "code"),
    [
        ("add_library(pkg::headers INTERFACE IMPORTED)\n", None),
        ("", "SL105"),
        (
            "add_library(pkg::headers SHARED IMPORTED)\n"
            "set_target_properties(pkg::headers PROPERTIES IMPORTED_LOCATION "
            '"${CMAKE_CURRENT_LIST_DIR}/../../lib/libpkg.so")\n',
            "SL107",
        ),
    ],
)
def test_a_header_only_component_has_an_interface_target(
    tmp_path: Path, definition: str, code: str | None
) -> None:
    """pybind11's shape: a component that is headers and usage requirements, no library."""
    config = (
        "add_library(pkg::runtime SHARED IMPORTED)\n"
        "set_target_properties(pkg::runtime PROPERTIES IMPORTED_LOCATION "
        '"${CMAKE_CURRENT_LIST_DIR}/../../lib/libpkg.so")\n'
        f"{definition}set(pkg_FOUND TRUE)\n"
    )
    the_manifest = manifest(
        libraries=(library("pkg", LibraryKind.RUNTIME, components=("runtime",)),),
        components=(
            Component("runtime", False, None),
            Component("headers", False, None, header_only=True),
        ),
    )
    _, diagnostics = _run(
        tmp_path, config, the_manifest, libraries=("libpkg.so",), versions=(NEW_CMAKE_VERSION,)
    )
    found = [d for d in diagnostics if d.code in ("SL105", "SL106", "SL107")]
    if code is None:
        assert found == []
    else:
        (finding,) = found
        assert finding.code == code and finding.subject.component == "headers"
        assert "header-only" in finding.message
