"""The machine a probe builds on: its platform, C++ compiler and build tool."""

from __future__ import annotations

import platform as _platform
import shutil
import sys
from pathlib import Path

from shiplint.fastclass import dataclass
from shiplint.platforms import Platform, normalise_arch

# Tried in order; the first on PATH builds the consumers.
COMPILERS = ("c++", "g++", "clang++")


@dataclass(frozen=True)
class Toolchain:
    compiler: str
    # CMake generator and the build tool it needs; Ninja when present, else Makefiles.
    generator: str

    def configure(
        self, cmake: str, source: Path, build: Path, package: str, config_dir: Path
    ) -> list[str]:
        """A consumer project's configure with this generator, finding the package's
        config by `<package>_DIR` alone (never through the user's package registry)."""
        return [
            cmake, "-S", str(source), "-B", str(build), "-G", self.generator,
            f"-D{package}_DIR={config_dir}", "-DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF",
        ]  # fmt: skip


def host_platform() -> Platform:
    if sys.platform.startswith("linux"):
        os_name = "linux"
    elif sys.platform == "darwin":
        os_name = "macos"
    elif sys.platform in ("win32", "cygwin"):
        os_name = "windows"
    else:
        os_name = sys.platform
    return Platform(os_name, normalise_arch(_platform.machine()))


def same_platform(artifact: Platform, host: Platform) -> bool:
    return artifact.os == host.os and (artifact.arch is None or artifact.arch == host.arch)


def find_toolchain() -> Toolchain | str:
    """The compiler and generator to use, or why there is none."""
    compiler = next((found for name in COMPILERS if (found := shutil.which(name))), None)
    if compiler is None:
        return f"no C++ compiler on PATH (looked for {', '.join(COMPILERS)})"
    if shutil.which("ninja"):
        return Toolchain(compiler, "Ninja")
    if shutil.which("make"):
        return Toolchain(compiler, "Unix Makefiles")
    return "no build tool on PATH (looked for ninja, make)"
