"""How a config answers component requests, asked as consumers ask: with and without
REQUIRED, batched and one by one. Small configs shaped like real ones, real CMake."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from shiplint.artifacts.archive import open_artifact
from shiplint.cmake_eval import evaluate_artifact
from shiplint.cmake_eval.model import ConfigEvaluation
from shiplint.diagnostics import Diagnostic
from shiplint.engine import Selection, lint
from shiplint.manifest.errors import ManifestError
from shiplint.manifest.load import load_manifest
from shiplint.manifest.model import Carries, Component, LibraryKind, Manifest, RequestSet
from shiplint.platforms import Platform
from shiplint.registry import RULES

from tests.builders import library, listing_as, manifest
from tests.material import NEW_CMAKE_VERSION, OLD_CMAKE_VERSION, cmake

TBB_MANIFEST = Path(__file__).parent.parent / "examples" / "tbb-devel" / "shiplint.yaml"

LINUX = Platform("linux", "x86_64")


def _manifest() -> Manifest:
    return manifest(
        libraries=(
            library("pkg", LibraryKind.RUNTIME, components=("runtime",)),
            library("pkg_core", components=("core",)),
        ),
        components=(Component("runtime", False, None), Component("core", False, None)),
    )


def evaluate(
    tmp_path: Path,
    config: str,
    the_manifest: Manifest,
    libraries: tuple[str, ...],
    version: str = NEW_CMAKE_VERSION,
) -> tuple[ConfigEvaluation, list[Diagnostic]]:
    root = tmp_path / "pkg-1.0"
    (root / "pkg" / "share" / "cmake").mkdir(parents=True)
    (root / "pkg" / "lib").mkdir(parents=True)
    for name in libraries:
        (root / "pkg" / "lib" / name).write_bytes(b"")
    (root / "pkg" / "share" / "cmake" / "pkg-config.cmake").write_text(config, encoding="utf-8")
    tree = open_artifact(root)
    listing = listing_as(tree, the_manifest, LINUX)
    models = evaluate_artifact(tree, listing, the_manifest, [str(cmake(version))], 60.0)
    (ev,) = [m for m in models if isinstance(m, ConfigEvaluation)]
    selection = Selection(select=("SL1",), ignore=("SL116",))
    return ev, lint(RULES, the_manifest, models, selection)


# A config that takes another path when REQUIRED: it then insists on a versioned file
# the package does not ship (@REQUIRED_FILE@), or on the one it does.
_BRANCHES = """
set(_lib "${CMAKE_CURRENT_LIST_DIR}/../../lib")
foreach(_c IN LISTS pkg_FIND_COMPONENTS)
  set(_file "${_lib}/libpkg_${_c}.so")
  if(_c STREQUAL "runtime")
    set(_file "${_lib}/libpkg.so")
  endif()
  if(pkg_FIND_REQUIRED AND _c STREQUAL "core")
    set(_file "${_lib}/@REQUIRED_FILE@")
  endif()
  if(EXISTS "${_file}")
    set(pkg_${_c}_FOUND TRUE)
  else()
    set(pkg_${_c}_FOUND FALSE)
    set(pkg_FOUND FALSE)
    set(pkg_NOT_FOUND_MESSAGE "pkg: ${_c} needs ${_file}")
  endif()
endforeach()
"""


@pytest.mark.parametrize(
    ("required_file", "fires"), [("libpkg_core.so.2", True), ("libpkg_core.so", False)]
)
def test_a_config_that_answers_required_requests_differently_is_reported(
    tmp_path: Path, required_file: str, fires: bool
) -> None:
    config = _BRANCHES.replace("@REQUIRED_FILE@", required_file)
    ev, diagnostics = evaluate(tmp_path, config, _manifest(), ("libpkg.so", "libpkg_core.so"))
    core = ev.request("core")
    assert core is not None and core.found
    assert core.required_found is (not fires)
    runtime = ev.request("runtime")
    assert runtime is not None and runtime.required_found is True
    sl119 = [d for d in diagnostics if d.code == "SL119"]
    if not fires:
        assert sl119 == []
        return
    (finding,) = sl119
    assert finding.subject.component == "core"
    assert "find_package(pkg COMPONENTS core REQUIRED) refuses core" in finding.message
    assert "libpkg_core.so.2" in finding.message
    assert "while find_package(pkg COMPONENTS core) finds it" in finding.message


def test_a_component_found_only_when_required_is_reported_the_other_way(
    tmp_path: Path,
) -> None:
    config = _BRANCHES.replace("@REQUIRED_FILE@", "libpkg_core.so").replace(
        'set(_file "${_lib}/libpkg_${_c}.so")', 'set(_file "${_lib}/libpkg_${_c}.so.9")'
    )
    _, diagnostics = evaluate(tmp_path, config, _manifest(), ("libpkg.so", "libpkg_core.so"))
    (finding,) = [d for d in diagnostics if d.code == "SL119"]
    assert "find_package(pkg COMPONENTS core) refuses core" in finding.message
    assert "while find_package(pkg COMPONENTS core REQUIRED) finds it" in finding.message


# Answers every request as a whole and unsets the per-component answers before
# returning (OpenVINO does): a batched refusal does not say whom it is about.
_UNANSWERED = """
foreach(_c IN LISTS pkg_FIND_COMPONENTS)
  if(NOT EXISTS "${CMAKE_CURRENT_LIST_DIR}/../../lib/libpkg_${_c}.so"
     AND NOT _c STREQUAL "runtime")
    set(pkg_FOUND FALSE)
    set(pkg_NOT_FOUND_MESSAGE "pkg: no ${_c}")
  endif()
  unset(pkg_${_c}_FOUND)
endforeach()
"""


def test_a_batched_refusal_is_blamed_only_on_the_component_refused_alone(
    tmp_path: Path,
) -> None:
    """The batched request for runtime and core fails because of core only; asked one
    by one, runtime is found, so only core is reported."""
    # core ships under a name this config does not look for.
    the_manifest = manifest(
        libraries=(
            library("pkg", LibraryKind.RUNTIME, components=("runtime",)),
            library("pkg_core", components=("core",), output_name="pkg_core2"),
        ),
        components=(Component("runtime", False, None), Component("core", False, None)),
    )
    ev, diagnostics = evaluate(
        tmp_path, _UNANSWERED, the_manifest, ("libpkg.so", "libpkg_core2.so")
    )
    runtime, core = ev.request("runtime"), ev.request("core")
    assert runtime is not None and runtime.retried and runtime.found
    assert core is not None and core.retried and not core.found
    assert [(d.code, d.subject.component) for d in diagnostics if d.code == "SL110"] == [
        ("SL110", "core")
    ]


# A package that answers a special request, ALL, with every component it has; the
# broken form expands ALL from a list kept by hand that forgot `extra`.
_REQUEST_SET = """
set(_lib "${CMAKE_CURRENT_LIST_DIR}/../../lib")
set(_every runtime core extra)
if(NOT pkg_FIND_COMPONENTS)
  set(pkg_FIND_COMPONENTS ${_every})
elseif("ALL" IN_LIST pkg_FIND_COMPONENTS)
  set(pkg_FIND_COMPONENTS @ALL@)
endif()
foreach(_c IN LISTS pkg_FIND_COMPONENTS)
  if(_c IN_LIST _every)
    set(_file "${_lib}/libpkg_${_c}.so")
    add_library(pkg::${_c} SHARED IMPORTED)
    set_target_properties(pkg::${_c} PROPERTIES IMPORTED_LOCATION "${_file}")
    set(pkg_${_c}_FOUND TRUE)
  else()
    set(pkg_${_c}_FOUND FALSE)
    set(pkg_FOUND FALSE)
    set(pkg_NOT_FOUND_MESSAGE "pkg has no component ${_c}")
  endif()
endforeach()
"""


def _set_manifest(brings: Carries) -> Manifest:
    base = manifest(
        libraries=tuple(library(f"pkg_{c}", components=(c,)) for c in ("runtime", "core", "extra")),
        components=tuple(Component(c, False, None) for c in ("runtime", "core", "extra")),
    )
    return replace(base, cmake=replace(base.cmake, request_sets=(RequestSet("ALL", brings),)))


_SHIPPED = ("libpkg_runtime.so", "libpkg_core.so", "libpkg_extra.so")


@pytest.mark.parametrize("version", [OLD_CMAKE_VERSION, NEW_CMAKE_VERSION])
def test_a_request_set_brings_every_shipped_component(tmp_path: Path, version: str) -> None:
    config = _REQUEST_SET.replace("@ALL@", "${_every}")
    ev, diagnostics = evaluate(tmp_path, config, _set_manifest(Carries()), _SHIPPED, version)
    assert [d.code for d in diagnostics] == []
    (answer,) = ev.request_sets
    assert answer.request == "ALL" and answer.found
    assert sorted(t.component or "" for t in answer.targets) == ["core", "extra", "runtime"]
    # Not taken for a component: no request answers for a component named ALL.
    assert ev.request("ALL") is None


@pytest.mark.parametrize("version", [OLD_CMAKE_VERSION, NEW_CMAKE_VERSION])
def test_a_request_set_that_leaves_out_a_shipped_component_is_reported(
    tmp_path: Path, version: str
) -> None:
    config = _REQUEST_SET.replace("@ALL@", "runtime core")
    _, diagnostics = evaluate(tmp_path, config, _set_manifest(Carries()), _SHIPPED, version)
    (finding,) = [d for d in diagnostics if d.code == "SL120"]
    assert finding.subject.component == "extra" and finding.subject.target == "pkg::extra"
    assert "find_package(pkg COMPONENTS ALL) publishes no target for extra" in finding.message
    # Declared as bringing the others only: quiet.
    _, quiet = evaluate(
        tmp_path / "declared",
        config,
        _set_manifest(Carries(excluded=("extra",))),
        _SHIPPED,
        version,
    )
    assert [d.code for d in quiet] == []


def test_a_refused_request_set_is_reported(tmp_path: Path) -> None:
    config = _REQUEST_SET.replace("@ALL@", "ALL")
    _, diagnostics = evaluate(tmp_path, config, _set_manifest(Carries()), _SHIPPED)
    (finding,) = [d for d in diagnostics if d.code == "SL120"]
    assert "find_package(pkg COMPONENTS ALL) fails" in finding.message
    assert "pkg has no component ALL" in finding.message


def test_a_request_set_naming_an_unknown_component_is_a_manifest_error(tmp_path: Path) -> None:
    text = Path(TBB_MANIFEST).read_text(encoding="utf-8")
    text = text.replace(
        "  routes:\n",
        "  request_sets:\n    - request: ALL\n      brings: {all_except: [tbbbind_3_0]}\n"
        "  routes:\n",
        1,
    )
    path = tmp_path / "shiplint.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ManifestError) as caught:
        load_manifest(path)
    (problem,) = caught.value.problems
    assert "request set ALL names unknown component 'tbbbind_3_0'" in problem.message
    assert problem.location.line == text.splitlines().index("  request_sets:") + 3
