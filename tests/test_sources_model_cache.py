"""The sources model comes back from the user cache only while the walk would make it again.

A small project is walked, edited one way at a time (a CMake file's bytes, a module
appearing on CMAKE_MODULE_PATH, a subdirectory appearing, an EXISTS test turning
true, a symlinked directory retargeted, the build script, a checked-in file a
packaging entry names), and walked again through the cache: each time the model
differs from the one before the edit and equals a walk with no cache at all.
"""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest
from shiplint import cache
from shiplint.manifest.model import (
    BuildDeclaration,
    Manifest,
    PackagingCall,
    Sources,
    bare_manifest,
)
from shiplint.sources import model_cache
from shiplint.sources.collect import read_sources
from shiplint.sources.files import FileQueries, still_answered
from shiplint.sources.model import SourceModel
from shiplint.sources.model_codec import decode, encode

REPO = Path(__file__).resolve().parent.parent
FIXTURES = REPO / "tests" / "fixtures"

_TOP = """cmake_minimum_required(VERSION 3.19)
project(cached CXX)
list(APPEND CMAKE_MODULE_PATH ${CMAKE_CURRENT_SOURCE_DIR}/cmake)
include(Helpers)
add_subdirectory(core)
add_subdirectory(linked)
add_subdirectory(extra)
if(EXISTS ${CMAKE_CURRENT_SOURCE_DIR}/optional/marker.txt)
  add_library(optional_lib SHARED o.cpp)
endif()
"""
_SETUP = """
args = ["--target", "core_lib"]
PACKAGED = [BuiltFile(src_dir="prebuilt", src_name="libvendor.so")]
"""
_MANIFEST = replace(
    bare_manifest("cached"),
    sources=Sources(
        cmake_roots=(".",),
        build_declarations=(
            BuildDeclaration(
                "setup-py",
                "setup.py",
                packaging=(PackagingCall(("BuiltFile",), "src_name", dir_keyword="src_dir"),),
            ),
        ),
    ),
)


def _project(root: Path) -> Path:
    (root / "core").mkdir(parents=True)
    (root / "CMakeLists.txt").write_text(_TOP, encoding="utf-8")
    (root / "core" / "CMakeLists.txt").write_text("add_library(core_lib SHARED c.cpp)\n")
    for name, body in (("one", "add_library(one SHARED a.cpp)\n"), ("two", "")):
        (root / name).mkdir()
        (root / name / "CMakeLists.txt").write_text(body, encoding="utf-8")
    (root / "linked").symlink_to("one", target_is_directory=True)
    (root / "setup.py").write_text(_SETUP, encoding="utf-8")
    (root / "prebuilt").mkdir()
    return root


def _write(relative: str, text: str) -> Callable[[Path], None]:
    def edit(root: Path) -> None:
        (root / relative).parent.mkdir(parents=True, exist_ok=True)
        (root / relative).write_text(text, encoding="utf-8")

    return edit


def _retarget(root: Path) -> None:
    (root / "linked").unlink()
    (root / "linked").symlink_to("two", target_is_directory=True)


_EDITS = {
    "a CMake file's bytes": _write("core/CMakeLists.txt", "add_library(core_lib STATIC c.cpp)\n"),
    "a module on CMAKE_MODULE_PATH appears": _write(
        "cmake/Helpers.cmake", "add_library(helper SHARED h.cpp)\n"
    ),
    "a subdirectory appears": _write("extra/CMakeLists.txt", "add_library(extra SHARED e.cpp)\n"),
    "an EXISTS test turns true": _write("optional/marker.txt", ""),
    "a symlinked directory is retargeted": _retarget,
    "the build script": _write("setup.py", _SETUP.replace("core_lib", "helper")),
    "a packaged file is checked in": _write("prebuilt/libvendor.so", ""),
}


def _walked_afresh(root: Path, manifest: Manifest, monkeypatch: pytest.MonkeyPatch) -> SourceModel:
    with monkeypatch.context() as patch:
        patch.setenv("XDG_CACHE_HOME", str(root.parent / f"fresh-{os.urandom(4).hex()}"))
        return read_sources(root, manifest)


@pytest.mark.parametrize("edit", _EDITS.values(), ids=_EDITS.keys())
def test_an_edit_the_walk_would_see_is_a_new_model(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, edit: Callable[[Path], None]
) -> None:
    root = _project(tmp_path / "project")
    before = read_sources(root, _MANIFEST)
    assert model_cache.stored(root, _MANIFEST.sources) == before
    edit(root)
    assert model_cache.stored(root, _MANIFEST.sources) is None
    after = read_sources(root, _MANIFEST)
    assert after != before
    assert after == _walked_afresh(root, _MANIFEST, monkeypatch)
    # And the new model replaced the old one.
    assert model_cache.stored(root, _MANIFEST.sources) == after


def test_a_touch_that_changes_no_answer_keeps_the_model(tmp_path: Path) -> None:
    root = _project(tmp_path / "project")
    before = read_sources(root, _MANIFEST)
    (root / "core" / "CMakeLists.txt").touch()
    (root / "core" / "c.cpp").write_text("int f() { return 1; }\n")  # no CMake reads it
    assert model_cache.stored(root, _MANIFEST.sources) == before


def test_another_sources_section_is_another_entry(tmp_path: Path) -> None:
    root = _project(tmp_path / "project")
    read_sources(root, _MANIFEST)
    other = replace(_MANIFEST, sources=replace(_MANIFEST.sources, exclude=("core",)))
    assert model_cache.stored(root, other.sources) is None
    assert all(t.name != "core_lib" for t in read_sources(root, other).project.targets)


def _fixture_models() -> list[SourceModel]:
    from shiplint.manifest.load import load_manifest

    models = []
    for manifest in sorted(FIXTURES.glob("*/shiplint.yaml")):
        loaded = load_manifest(manifest)
        if loaded.sources.build_declarations or (manifest.parent / "CMakeLists.txt").is_file():
            models.append(read_sources(manifest.parent, loaded))
    assert len(models) >= 2
    return models


def test_a_stored_model_decodes_to_the_model() -> None:
    for model in _fixture_models():
        assert decode(encode(model)) == model


@pytest.mark.parametrize(
    "payload",
    [b"not marshal", b"\xe9\x02\x00\x00\x00", __import__("marshal").dumps(((), (99, "x")))],
    ids=["garbage", "truncated", "unknown-class"],
)
def test_an_entry_that_does_not_decode_is_walked_again(tmp_path: Path, payload: bytes) -> None:
    root = _project(tmp_path / "project")
    model = read_sources(root, _MANIFEST)
    name = model_cache._MODELS.key(*model_cache._inputs(root, _MANIFEST.sources))
    cache.write(model_cache._MODELS.kind, name, payload)
    assert model_cache.stored(root, _MANIFEST.sources) is None
    assert read_sources(root, _MANIFEST) == model
    assert model_cache.stored(root, _MANIFEST.sources) == model


def test_answers_changed_during_the_walk_are_not_stored(tmp_path: Path) -> None:
    path = tmp_path / "CMakeLists.txt"
    path.write_text("project(a)\n")
    files = FileQueries()
    files.read(path)
    path.write_text("project(b)\n")
    files.read(path)
    assert not files.consistent
    assert not still_answered(files.answers)


def test_a_failure_is_an_answer_too(tmp_path: Path) -> None:
    files = FileQueries()
    with pytest.raises(OSError):
        files.read(tmp_path / "missing.cmake")
    assert still_answered(files.answers)
    (tmp_path / "missing.cmake").write_text("")
    assert not still_answered(files.answers)


def test_a_path_that_became_a_symlink_loop_is_no_longer_answered(tmp_path: Path) -> None:
    files = FileQueries()
    files.resolve(tmp_path / "a")
    (tmp_path / "a").symlink_to(tmp_path / "b")
    (tmp_path / "b").symlink_to(tmp_path / "a")
    assert not still_answered(files.answers)


# -- what decides the model -----------------------------------------------------------

_WALK_IMPORTS = """
import json, sys
before = set(sys.modules)
import shiplint.sources.collect, shiplint.sources.declarations, shiplint.sources.graph
import shiplint.sources.interpret, shiplint.sources.packaging, shiplint.sources.parse_cache
print(json.dumps(sorted(m.__file__ for n, m in sys.modules.items()
                        if n.startswith("shiplint") and getattr(m, "__file__", None))))
"""


def test_the_key_holds_the_code_of_every_module_the_walk_runs() -> None:
    package = Path(model_cache.__file__).resolve().parent.parent
    # The child imports the shiplint this test imported (the checkout's or an installed one).
    env = {**os.environ, "PYTHONPATH": str(package.parent)}
    result = subprocess.run(
        [sys.executable, "-c", _WALK_IMPORTS],
        cwd=REPO, capture_output=True, text=True, timeout=60, check=True, env=env,
    )  # fmt: skip
    covered = {path.resolve() for path in model_cache._code_files()}
    ran = {Path(name).resolve() for name in json.loads(result.stdout)}
    # The package's __init__ holds the version, which every cache key holds already; the
    # cache and memo modules decide where and how entries are kept, not what they hold; an
    # empty module runs nothing.
    ran -= {package / "__init__.py", package / "cache.py", package / "memo.py"}
    ran = {path for path in ran if path.stat().st_size}
    assert sorted(ran - covered) == []


# Calls that ask the file system something. The walk asks only through FileQueries
# (sources/files.py, with bounds.read_source): anything else would be an answer the
# cache does not know it depends on.
_ASKING = {"is_file", "is_dir", "exists", "resolve", "read_text", "read_bytes", "glob",
           "rglob", "iterdir", "stat", "lstat", "open", "samefile", "scandir", "listdir",
           "walk", "readlink", "realpath", "getmtime", "isfile", "isdir"}  # fmt: skip
_ASKERS = {"files.py", "bounds.py", "identity.py", "model_cache.py", "parse_cache.py"}


def test_the_walk_asks_the_file_system_only_through_its_queries() -> None:
    sources = REPO / "linter" / "shiplint" / "sources"
    asking = []
    for module in sorted(sources.glob("*.py")):
        if module.name in _ASKERS:
            continue
        for node in ast.walk(ast.parse(module.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            owner = func.value if isinstance(func, ast.Attribute) else None
            through_files = (isinstance(owner, ast.Attribute) and owner.attr == "files") or (
                isinstance(owner, ast.Name) and owner.id == "files"
            )
            if isinstance(owner, ast.Name) and owner.id == "ast":
                continue  # ast.walk: a syntax tree, not the file system
            # A bare name is a function of the module's own (values.resolve is lexical),
            # but for the builtin open().
            asks = name in _ASKING if owner is not None else name == "open"
            if asks and not through_files:
                asking.append(f"{module.name}:{node.lineno} {name}()")
    assert asking == []
