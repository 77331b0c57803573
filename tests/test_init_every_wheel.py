"""init then check on every real wheel of the test material: the two agree.

The material spans the shapes init must start from: every ExecuTorch platform, a
release with no shared runtime (1.4.1), a runtime wheel whose config ships in another
(tbb), a py3-none-any header-only package with no binary at all (pybind11), INTERFACE
targets beside unrelated libraries (cmeel-eigen), byte-identical library copies
(cmeel-fmt), a 368 MiB dylib (torch on macOS).

For each wheel in the material cache, `shiplint init` (with both CMake routes) writes a
manifest, alone when the wheel is enough and otherwise together with what init asks
for (a platform or companion wheel that holds what this one lacks: the message says
which); then `shiplint check` reads every wheel of that run with it. No finding of the
check may call a component init wrote "not shipped": init writes only what the
artifacts ship and the config publishes.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from shiplint.cli import main

from tests.material import (
    CACHE,
    NEW_CMAKE_VERSION,
    OLD_CMAKE_VERSION,
    OTHER_WHEELS,
    TBB_RUNTIME,
    cmake,
)

CMAKES = ("--cmake", str(cmake(OLD_CMAKE_VERSION)), "--cmake", str(cmake(NEW_CMAKE_VERSION)))

# What init asks to be given beside a wheel it cannot start from alone, by file-name
# fragment: (what its message says, the wheel that supplies it).
COMPANIONS = {
    # The config reports NOT FOUND: the Windows wheel ships no linkable library.
    "executorch-1.5.1-cp311-cp311-win_amd64": (
        "together with this one",
        "executorch-1.5.1-cp311-cp311-manylinux_2_28_x86_64",
    ),
    # The runtime wheel's config ships in tbb-devel.
    "tbb-2021.13.1-py2.py3-none-manylinux1_x86_64": (
        "give init both in the same run",
        "tbb_devel-2021.13.1-py2.py3-none-manylinux1_x86_64",
    ),
}


def _wheels() -> list[Path]:
    """Every wheel `.ci/fetch-material` fetches: each ExecuTorch platform and release,
    and every other project's."""
    names = [
        *(f"executorch-{v}-*{p}.whl" for v, p in EXECUTORCH),
        *(f"{n.replace('-', '_')}-{v}-*.whl" for n, v in (*OTHER_WHEELS.values(), TBB_RUNTIME)),
    ]
    # The first of a name's matches, as tests.material picks it (a cache may hold more).
    return sorted(found[0] for name in names if (found := sorted((CACHE / "wheels").glob(name))))


EXECUTORCH = (
    ("1.5.1", "manylinux_2_28_x86_64"),
    ("1.5.1", "manylinux_2_28_aarch64"),
    ("1.5.1", "macosx_14_0_arm64"),
    ("1.5.1", "win_amd64"),
    ("1.4.1", "manylinux_2_28_x86_64"),
    ("1.0.1", "macosx_12_0_arm64"),
)


def consumer_python(monkeypatch: pytest.MonkeyPatch, wheel: Path) -> None:
    """pybind11's config runs FindPythonInterp, which tries `python3.9` and the like
    before `python3`: evaluated as a consumer building for this interpreter would (its
    directory first on PATH, then the system's), never through a pyenv shim of an
    uninstalled version, which answers with an error (as test_other_wheels_golden)."""
    if wheel.name.startswith("pybind11-"):
        monkeypatch.setenv(
            "PATH", os.pathsep.join((str(Path(sys.executable).parent), "/usr/bin", "/bin"))
        )


def _run(args: list[str]) -> tuple[int, str]:
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        code = main(args)
    return code, err.getvalue()


def _written_components(manifest: Path) -> set[str]:
    data = yaml.safe_load(manifest.read_text(encoding="utf-8"))
    return {c["name"] for c in data["components"]}


def _check(manifest: Path, wheel: Path, report: Path) -> list[dict[str, Any]]:
    args = ["check", "--no-sources", "--manifest", str(manifest), *CMAKES]
    _run([*args, "--format", "json", "--output", str(report), str(wheel)])
    found: list[dict[str, Any]] = json.loads(report.read_text(encoding="utf-8"))["diagnostics"]
    return found


def test_the_material_has_every_shape() -> None:
    names = [w.name for w in _wheels()]
    assert len(names) == len(EXECUTORCH) + len(OTHER_WHEELS) + 1, names
    assert any("macosx" in n for n in names) and any("win_amd64" in n for n in names)


@pytest.mark.parametrize("wheel", _wheels(), ids=lambda w: w.stem)
def test_init_then_check_calls_no_written_component_not_shipped(
    wheel: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    consumer_python(monkeypatch, wheel)
    manifest = tmp_path / "shiplint.yaml"
    given = [wheel]
    code, err = _run(["init", *CMAKES, "--output", str(manifest), str(wheel)])
    if wheel.stem in COMPANIONS:
        said, companion = COMPANIONS[wheel.stem]
        # Alone it cannot start, and says what it needs.
        assert code == 2 and said in err, err
        given.append(CACHE / "wheels" / f"{companion}.whl")
        code, err = _run(["init", *CMAKES, "--output", str(manifest), *map(str, given)])
    assert code == 0, err
    written = _written_components(manifest)
    assert written
    for index, artifact in enumerate(given):
        found = _check(manifest, artifact, tmp_path / f"r{index}.json")
        wrong = [
            f"{d['code']} {d['message']}"
            for d in found
            if d["subject"].get("component") in written and "not shipped" in d["message"]
        ]
        assert wrong == [], artifact.name


@pytest.mark.parametrize("platform", ["manylinux_2_28_x86_64", "macosx_14_0_arm64"])
def test_torchs_libraries_are_a_provided_distribution_on_linux_and_macos(
    platform: str, tmp_path: Path
) -> None:
    """The binaries find libtorch through a search path into torch/lib beside the
    package: init writes torch as a provided distribution, not a system library (on
    macOS a case-blind `[A-Z]*` once filed it under the OS's frameworks), so the check
    finds the torch requirement the wheel's metadata no longer states, on both."""
    (wheel,) = (CACHE / "wheels").glob(f"executorch-1.5.1-*{platform}.whl")
    manifest = tmp_path / "shiplint.yaml"
    code, err = _run(["init", *CMAKES, "--output", str(manifest), str(wheel)])
    assert code == 0, err
    externals = yaml.safe_load(manifest.read_text(encoding="utf-8"))["externals"]
    (torch,) = externals["provided"]
    assert (torch["provider"], torch["distribution"]) == ("torch", "torch")
    suffix = ".so" if "linux" in platform else ".dylib"
    assert set(torch["libraries"]) == {
        f"lib{n}{suffix}" for n in ("c10", "torch", "torch_cpu", "torch_python")
    }
    system = [e for e in externals.get("system", ()) if isinstance(e, str)]
    assert not [e for e in system if "torch" in e or "c10" in e]
    found = _check(manifest, wheel, tmp_path / "r.json")
    assert "SL321" in {d["code"] for d in found}
