"""The source walk agrees with real CMake on the synthetic project.

CMake itself (both routes' binaries) configures tests/fixtures/srcproject with the
options the wheel uses, and its File API codemodel says which targets exist, of
which type, under which file name. The walk, which evaluates nothing, must have
seen each of them with that type and that name among its possibilities. Then a
real `cmake --build` of exactly the setup.py target list produces exactly the
libraries the walk calls built: the "declared but never built" verdict is CMake's.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from shiplint.checks.sources import possible_output_names
from shiplint.manifest.load import load_manifest
from shiplint.sources.collect import read_sources
from shiplint.sources.model import SourceModel

from tests.material import NEW_CMAKE_VERSION, OLD_CMAKE_VERSION, cmake

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "srcproject"
_TYPES = {
    "SHARED_LIBRARY": "SHARED",
    "STATIC_LIBRARY": "STATIC",
    "MODULE_LIBRARY": "MODULE",
    "OBJECT_LIBRARY": "OBJECT",
    "INTERFACE_LIBRARY": "INTERFACE",
}


@pytest.fixture(scope="session")
def model() -> SourceModel:
    return read_sources(FIXTURE, load_manifest(FIXTURE / "shiplint.yaml"))


def configure(binary: Path, build: Path) -> list[dict[str, object]]:
    """Configure the fixture as the wheel does; the codemodel's targets."""
    query = build / ".cmake" / "api" / "v1" / "query"
    query.mkdir(parents=True)
    (query / "codemodel-v2").touch()
    subprocess.run(
        [str(binary), "-S", str(FIXTURE), "-B", str(build), "-G", "Ninja",
         "-DDEMO_BUILD_SHARED=ON", "-DDEMO_BUILD_WHEEL=ON"],
        check=True, capture_output=True, timeout=120,
    )  # fmt: skip
    reply = build / ".cmake" / "api" / "v1" / "reply"
    targets = []
    for path in sorted(reply.glob("target-*.json")):
        targets.append(json.loads(path.read_text(encoding="utf-8")))
    return targets


@pytest.fixture(scope="session")
def configured(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    out = {}
    for version in (OLD_CMAKE_VERSION, NEW_CMAKE_VERSION):
        build = tmp_path_factory.mktemp(f"srcproject-{version}")
        out[version] = build
        configure(cmake(version), build)
    return out


@pytest.mark.parametrize("version", [OLD_CMAKE_VERSION, NEW_CMAKE_VERSION])
def test_walk_sees_every_target_cmake_defines(
    model: SourceModel, configured: dict[str, Path], version: str
) -> None:
    reply = configured[version] / ".cmake" / "api" / "v1" / "reply"
    targets = [json.loads(p.read_text(encoding="utf-8")) for p in reply.glob("target-*.json")]
    assert len(targets) == 5
    for target in targets:
        name, kind = str(target["name"]), _TYPES[str(target["type"])]
        definitions = model.project.definitions(name)
        assert definitions, f"CMake defines {name}; the walk did not see it"
        assert kind in {d.library_type for d in definitions}, (name, kind, definitions)
        on_disk = str(target["nameOnDisk"])
        names = {n for n, _, _ in possible_output_names(model, name)}
        assert any(on_disk in (f"lib{n}.so", f"lib{n}.a", f"{n}.so") for n in names), (
            on_disk,
            names,
        )
    # And nothing the walk reports exists only in its imagination (the vendored tree is
    # excluded, and off in CMake too).
    assert {t.name for t in model.project.targets} == {str(t["name"]) for t in targets}


def test_building_the_setup_py_list_builds_exactly_what_the_walk_calls_built(
    model: SourceModel, configured: dict[str, Path]
) -> None:
    if shutil.which("ninja") is None or shutil.which("c++") is None:
        pytest.fail("this test builds the fixture: it needs ninja and a C++ compiler")
    build = configured[NEW_CMAKE_VERSION]
    requested = [r.name for r in model.plan.requests]
    assert requested == ["demo_runtime", "demo_quantized_ops", "demo_plugin"]
    subprocess.run(
        [str(cmake(NEW_CMAKE_VERSION)), "--build", str(build), "--target", *requested],
        check=True, capture_output=True, timeout=300,
    )  # fmt: skip
    produced = {p.name for p in build.rglob("*") if p.suffix in (".so", ".a")}
    built = {name for name, _ in model.built}
    expected = {
        "demo_runtime": "libdemo.so",
        "demo_quantized_ops": "libdemo_kernels_quantized.so",
        "demo_optimized_ops": "libdemo_kernels_optimized.so",
        "demo_plugin": "libdemo_plugin.so",
        "demo_kernels_impl": "libdemo_kernels_impl.a",
    }
    assert built == set(expected)
    assert produced == set(expected.values())
    # The optimized kernels are built only because the plugin links them.
    assert model.built_by("demo_optimized_ops") == (
        "demo_plugin is requested at setup.py:15:34 (when os.environ.get('DEMO_PLUGIN', '1') "
        "== '1')",
        "demo_plugin links demo_optimized_ops at plugin/CMakeLists.txt:3:1",
    )
