"""Helpers of the link-probe tests: the synthetic package `probepkg`, built by the system
compiler once per session, its manifest, and the edits that break a config on purpose.

    probepkg/lib/libprobepkg.so          the runtime: the registry (SONAME libprobepkg.so)
    probepkg/lib/libprobepkg_kernels.so  registration-only: a static initializer, nothing else
    probepkg/lib/libprobepkg_extra.so    registration-only and opt-in
    probepkg/share/cmake/probepkg-config.cmake   both routes (tests/fixtures/probepkg/)
    probepkg/include/probepkg.h          the directory the config requires
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
from shiplint.diagnostics import Diagnostic
from shiplint.manifest.load import load_manifest
from shiplint.manifest.model import Manifest

from tests.material import REPO, portable

FIXTURE = REPO / "tests" / "fixtures" / "probepkg"
CONFIG = FIXTURE / "probepkg-config.cmake"
MANIFEST_FILE = FIXTURE / "shiplint.yaml"
LIBRARIES = {
    "probepkg": "runtime.cpp",
    "probepkg_kernels": "kernels.cpp",
    "probepkg_extra": "extra.cpp",
}
REGISTRATION_ONLY = ("kernels", "extra")
# The registry's API, which the manifest's registry listing calls.
HEADER = """#pragma once
namespace probepkg {
int registered_count();
const char* registered_name(int index);
}  // namespace probepkg
"""


def compile_libraries(out: Path) -> Path:
    """Compile the three libraries into `out` with the system compiler."""
    compiler = shutil.which("g++") or shutil.which("c++")
    if compiler is None:
        pytest.fail("the link-probe tests need a C++ compiler (g++ or c++) on PATH")
    out.mkdir(parents=True, exist_ok=True)
    for name, source in LIBRARIES.items():
        command = [
            compiler, "-shared", "-fPIC", "-O1", str(FIXTURE / source),
            f"-Wl,-soname,lib{name}.so", "-Wl,--enable-new-dtags", "-Wl,-rpath,$ORIGIN",
            "-o", str(out / f"lib{name}.so"),
        ]  # fmt: skip
        if name != "probepkg":
            command += [f"-L{out}", "-lprobepkg"]
        subprocess.run(command, check=True, capture_output=True)
    return out


def make_package(libraries: Path, dest: Path, config_text: str | None = None) -> Path:
    """An install tree of probepkg under `dest` (a directory artifact), with `config_text`."""
    root = dest / "probepkg"
    (root / "lib").mkdir(parents=True)
    for name in LIBRARIES:
        shutil.copy2(libraries / f"lib{name}.so", root / "lib" / f"lib{name}.so")
    (root / "share" / "cmake").mkdir(parents=True)
    text = config_text if config_text is not None else CONFIG.read_text(encoding="utf-8")
    (root / "share" / "cmake" / "probepkg-config.cmake").write_text(text, encoding="utf-8")
    (root / "include").mkdir()
    (root / "include" / "probepkg.h").write_text(HEADER, encoding="utf-8")
    return dest


def probepkg_manifest() -> Manifest:
    """The package's manifest (tests/fixtures/probepkg/shiplint.yaml), through the real loader."""
    return load_manifest(MANIFEST_FILE, "tests/fixtures/probepkg/shiplint.yaml")


_TARGET_RETENTION = re.compile(r'\s*"LINKER:--push-state,--no-as-needed,[^"]*,--pop-state"')
_PATH_RETENTION = re.compile(r"-Wl,--push-state,--no-as-needed,([^\"]*?),--pop-state")


def strip_retention(config: str) -> str:
    """The config with every retention wrapping removed: the options on imported targets
    dropped (the target still links its IMPORTED_LOCATION), wrapped paths left bare."""
    stripped = _PATH_RETENTION.sub(r"\1", _TARGET_RETENTION.sub("", config))
    assert stripped != config, "the config had no retention wrapping to remove"
    return stripped


def with_opt_in_in_aggregate(config: str) -> str:
    """The defect of seed 002 undone: the opt-in component put into the aggregate."""
    edited = config.replace(
        "set(_probepkg_aggregate kernels)", "set(_probepkg_aggregate kernels extra)"
    )
    assert edited != config
    return edited


def with_bare_link_name(config: str) -> str:
    """A target that hands the linker a bare name nothing provides: the link fails."""
    edited = config.replace(
        "INTERFACE_LINK_LIBRARIES probepkg::runtime",
        'INTERFACE_LINK_LIBRARIES "probepkg::runtime;probepkg_missing"',
    )
    assert edited != config
    return edited


def render(diagnostics: list[Diagnostic]) -> list[str]:
    """One line per diagnostic, as the golden files hold them."""
    return [
        f"{portable(d.location.render())}: {d.code} [{d.severity.value}] {d.message}"
        for d in diagnostics
    ]
