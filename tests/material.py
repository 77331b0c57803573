"""The real test material fetched by `.ci/fetch-material`: wheels and CMake releases.

Missing material fails the test that needs it (never a silent skip): run
`bash .ci/fetch-material` first.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

CACHE = Path(os.environ.get("SHIPLINT_CACHE", Path.home() / ".cache" / "shiplint"))
REPO = Path(__file__).resolve().parent.parent
EXAMPLE_MANIFEST = REPO / "examples" / "executorch" / "shiplint.yaml"

# CMake releases on each side of the 3.28 boundary the ExecuTorch config branches on.
OLD_CMAKE_VERSION = "3.24.3"
NEW_CMAKE_VERSION = "4.4.5"


def portable(text: str) -> str:
    """Report text with the material cache spelled `$SHIPLINT_CACHE`: a finding inside a
    wheel names the wheel's path, and a golden file must not name this machine's home."""
    return text.replace(str(CACHE), "$SHIPLINT_CACHE")


def wheel(version: str, platform: str) -> Path:
    """The cached ExecuTorch wheel, e.g. wheel("1.5.1", "manylinux_2_28_x86_64")."""
    matches = sorted((CACHE / "wheels").glob(f"executorch-{version}-*{platform}*.whl"))
    if not matches:
        pytest.fail(
            f"missing test material: executorch {version} {platform}; run .ci/fetch-material"
        )
    return matches[0]


# Other projects' wheels (distribution, version): each has examples/<name>/shiplint.yaml.
OTHER_WHEELS = {
    "openvino": ("openvino", "2025.4.1"),
    "mlx": ("mlx-metal", "0.32.4"),
    "tbb-devel": ("tbb-devel", "2021.13.1"),
    "pybind11": ("pybind11", "3.1.0"),
    "fmt": ("cmeel-fmt", "12.2.0"),
    "eigen": ("cmeel-eigen", "3.4.1"),
    # macOS arm64: libtorch_cpu.dylib is 368 MiB (read through a file, never whole).
    "torch": ("torch", "2.14.1"),
}


# The runtime wheel oneTBB's tbb-devel installs beside: examples/onetbb checks the two
# as one prefix.
TBB_RUNTIME = ("tbb", "2021.13.1")


def other_wheel(example: str) -> Path:
    """The cached wheel of another project, by its example's name (`openvino`)."""
    return cached_wheel(*OTHER_WHEELS[example])


def cached_wheel(name: str, version: str) -> Path:
    """The cached wheel of distribution `name` at `version`."""
    matches = sorted((CACHE / "wheels").glob(f"{name.replace('-', '_')}-{version}-*.whl"))
    if not matches:
        pytest.fail(f"missing test material: {name} {version}; run .ci/fetch-material")
    return matches[0]


def example_manifest(example: str) -> Path:
    return REPO / "examples" / example / "shiplint.yaml"


def cmake(version: str) -> Path:
    binary = CACHE / f"cmake-{version}" / "cmake" / "data" / "bin" / "cmake"
    if not binary.is_file():
        pytest.fail(f"missing test material: cmake {version}; run .ci/fetch-material")
    return binary
