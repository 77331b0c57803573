"""Platforms (OS + architecture) and the selectors the manifest uses for them.

A selector is `linux`, `macos`, `windows`, optionally with an architecture:
`linux-x86_64`, `macos-arm64`. Architectures are normalised so a wheel tag's
`amd64` and an ELF header's `x86_64` compare equal.
"""

from __future__ import annotations

from shiplint.fastclass import dataclass

_ARCH_ALIASES = {
    "x86_64": "x86_64",
    "amd64": "x86_64",
    "x64": "x86_64",
    "aarch64": "aarch64",
    "arm64": "aarch64",
    "i686": "x86",
    "x86": "x86",
    "win32": "x86",
    "armv7l": "arm",
    "arm": "arm",
    "ppc64le": "ppc64le",
    "s390x": "s390x",
    "riscv64": "riscv64",
    "universal2": "universal2",
}

# Bytes in a data pointer per normalised architecture: a consumer's CMAKE_SIZEOF_VOID_P
# when it builds for that architecture (universal2: both of its architectures).
_POINTER_SIZES = {
    "x86_64": 8,
    "aarch64": 8,
    "ppc64le": 8,
    "s390x": 8,
    "riscv64": 8,
    "universal2": 8,
    "x86": 4,
    "arm": 4,
}

# CMAKE_SYSTEM_NAME per OS, so a config can be evaluated as another platform.
CMAKE_SYSTEM_NAMES = {"linux": "Linux", "macos": "Darwin", "windows": "Windows"}


def normalise_arch(arch: str) -> str:
    return _ARCH_ALIASES.get(arch.lower(), arch.lower())


@dataclass(frozen=True, order=True)
class Platform:
    os: str
    arch: str | None = None

    def __str__(self) -> str:
        return self.os if self.arch is None else f"{self.os}-{self.arch}"

    @property
    def cmake_system_name(self) -> str:
        return CMAKE_SYSTEM_NAMES[self.os]

    @property
    def pointer_size(self) -> int | None:
        """CMAKE_SIZEOF_VOID_P for a consumer building for this platform; None when its
        architecture is unknown."""
        return None if self.arch is None else _POINTER_SIZES.get(normalise_arch(self.arch))


@dataclass(frozen=True)
class PlatformSelector:
    os: str
    arch: str | None = None

    @classmethod
    def parse(cls, text: str) -> PlatformSelector:
        os_name, _, arch = text.partition("-")
        return cls(os_name, normalise_arch(arch) if arch else None)

    def __str__(self) -> str:
        return self.os if self.arch is None else f"{self.os}-{self.arch}"

    @property
    def specificity(self) -> int:
        return 0 if self.arch is None else 1

    def matches(self, platform: Platform) -> bool:
        if self.os != platform.os:
            return False
        return self.arch is None or platform.arch is None or self.arch == platform.arch


def wheel_platform_tag(name: str) -> str | None:
    """The platform tag of a wheel's file name,
    `{dist}-{version}(-{build})?-{py}-{abi}-{platform}.whl`."""
    parts = name[: -len(".whl")].split("-")
    return parts[-1] if len(parts) >= 5 else None


def wheel_platform(name: str) -> Platform | None:
    """The platform a wheel's file name is tagged for."""
    tag = wheel_platform_tag(name)
    # A compressed tag set (`manylinux_2_17_x86_64.manylinux2014_x86_64`) names one platform.
    return None if tag is None else platform_from_wheel_tag(tag.split(".")[0])


def platform_from_wheel_tag(tag: str) -> Platform | None:
    """The platform of a wheel's platform tag (`manylinux_2_28_x86_64`, `win_amd64`, ...)."""
    tag = tag.lower()
    if tag == "any":
        return None
    if "linux" in tag:
        for arch in ("x86_64", "aarch64", "i686", "armv7l", "ppc64le", "s390x", "riscv64"):
            if tag.endswith(arch):
                return Platform("linux", normalise_arch(arch))
        return Platform("linux")
    if tag.startswith("macosx"):
        arch = tag.split("_")[-1]
        return Platform("macos", normalise_arch(arch))
    if tag.startswith("win"):
        arch = tag.split("_", 1)[1] if "_" in tag else "x86"
        return Platform("windows", normalise_arch(arch))
    return None
