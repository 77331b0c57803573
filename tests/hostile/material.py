"""Real inputs the hostile cases start from: members of the cached ExecuTorch wheels, the
example manifest, and the small acme project."""

from __future__ import annotations

import functools
import os
import zipfile
from pathlib import Path

from tests.hostile.runner import REPO

CACHE = Path(os.environ.get("SHIPLINT_CACHE", Path.home() / ".cache" / "shiplint"))
EXAMPLE_MANIFEST = REPO / "examples" / "executorch" / "shiplint.yaml"
ACME = REPO / "tests" / "data" / "projects" / "acme"
WHEEL_STEM = "executorch-1.5.1-cp311-cp311-"

# One small real library per binary format, and the platform tag of its wheel.
LIBRARIES = {
    "elf": ("manylinux_2_28_x86_64", "executorch/lib/libexecutorch_etdump.so"),
    "macho": ("macosx_14_0_arm64", "executorch/lib/libexecutorch_etdump.dylib"),
    "pe": ("win_amd64", "executorch/kernels/quantized/quantized_ops_aot_lib.dll"),
}
# The config and metadata every small wheel carries, so the CMake evaluation runs too.
CONFIG_MEMBERS = (
    "executorch/share/cmake/executorch-config.cmake",
    "executorch/share/cmake/executorch-config-version.cmake",
)


def wheel_path(platform: str) -> Path:
    path = CACHE / "wheels" / f"{WHEEL_STEM}{platform}.whl"
    if not path.is_file():
        raise SystemExit(f"missing test material {path}: run .ci/fetch-material")
    return path


@functools.cache
def member(platform: str, name: str) -> bytes:
    with zipfile.ZipFile(wheel_path(platform)) as source:
        return source.read(name)


@functools.cache
def dist_info(platform: str) -> tuple[tuple[str, bytes], ...]:
    with zipfile.ZipFile(wheel_path(platform)) as source:
        return tuple(
            (info.filename, source.read(info))
            for info in source.infolist()
            if ".dist-info/" in info.filename
            and not info.is_dir()
            and not info.filename.endswith("RECORD")
        )


def small_wheel(
    dest_dir: Path, platform: str, members: list[tuple[str, bytes]], config: bool = True
) -> Path:
    """A wheel named for `platform` holding its metadata, the config, and `members`."""
    path = dest_dir / f"{WHEEL_STEM}{platform}.whl"
    base = list(dist_info(platform))
    if config:
        base += [(n, member("manylinux_2_28_x86_64", n)) for n in CONFIG_MEMBERS]
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as out:
        for name, data in [*base, *members]:
            out.writestr(name, data)
    return path
