"""Which CMake a configured binary is: its version, asked once per binary."""

from __future__ import annotations

import functools
import re
import shutil
import subprocess
from dataclasses import dataclass

_VERSION = re.compile(r"cmake version (\d+)\.(\d+)(?:\.(\d+))?")


@dataclass(frozen=True)
class CMakeBinary:
    path: str
    version: tuple[int, ...]

    @property
    def version_text(self) -> str:
        return ".".join(str(p) for p in self.version)


class CMakeUnusable(Exception):
    """The configured CMake cannot be run or does not say its version."""

    def __init__(self, path: str, reason: str) -> None:
        super().__init__(f"{path}: {reason}")
        self.path = path
        self.reason = reason


@functools.cache
def identify(path: str, timeout: float = 30.0) -> CMakeBinary:
    """Run `<path> --version`; raise CMakeUnusable when that does not work."""
    resolved = shutil.which(path)
    if resolved is None:
        raise CMakeUnusable(path, "not found or not executable")
    try:
        done = subprocess.run(
            [resolved, "--version"],
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise CMakeUnusable(path, f"cannot run it ({exc})") from exc
    match = _VERSION.search(done.stdout)
    if done.returncode != 0 or match is None:
        first = (done.stdout + done.stderr).strip().splitlines()[:1]
        raise CMakeUnusable(path, f"`--version` did not answer as CMake does: {first}")
    version = tuple(int(g) for g in match.groups() if g is not None)
    return CMakeBinary(resolved, version)
