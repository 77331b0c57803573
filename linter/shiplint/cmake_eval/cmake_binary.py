"""Which CMake a configured binary is: where it lies, and its version, asked once per binary
(and kept in the user cache for a binary file, see `_fingerprint`).

A CMake is named on the command line (`--cmake`), in `[tool.shiplint] cmake`, or
found on PATH. A name with a directory part is a path, relative to where it was
written (`located`); a bare name is looked up on PATH. Either way evaluation runs
the absolute path, because every CMake run starts in a temporary directory.
"""

from __future__ import annotations

import functools
import os
import re
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

from shiplint.fastclass import dataclass
from shiplint.memo import Memo, constant
from shiplint.waiting import HALT_GRACE, wait_running

_VERSION = re.compile(r"cmake version (\d+)\.(\d+)(?:\.(\d+))?")
_TRACEBACK = "Traceback (most recent call last):"
_BINARY_MAGIC = (
    b"\x7fELF",
    b"\xcf\xfa\xed\xfe",  # Mach-O 64-bit
    b"\xce\xfa\xed\xfe",  # Mach-O 32-bit
    b"\xca\xfe\xba\xbe",  # Mach-O universal
)


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


def is_bare_name(name: str) -> bool:
    """`cmake`, not `bin/cmake`: a name PATH lookup is for."""
    separators = {os.sep, "/", *([os.altsep] if os.altsep else [])}
    return not any(s in name for s in separators) and not name.startswith("~")


def located(name: str, base: Path) -> str:
    """`name` as something to run from any directory: a path made absolute against
    `base` (where it was written), a bare name left for PATH lookup."""
    if is_bare_name(name):
        return name
    return os.path.abspath(base / Path(name).expanduser())


def identify(name: str, timeout: float = 30.0) -> CMakeBinary:
    """The CMake `name` is (a path, relative ones against the current directory, or a bare
    name on PATH); raises CMakeUnusable saying what is wrong with it."""
    if is_bare_name(name):
        found = shutil.which(name)
        if found is None:
            raise CMakeUnusable(name, "not found on PATH")
        return _identify(os.path.abspath(found), timeout)
    return _identify(located(name, Path.cwd()), timeout)


@functools.cache
def _identify(path: str, timeout: float) -> CMakeBinary:
    if not os.path.exists(path):
        raise CMakeUnusable(path, "not found")
    if os.path.isdir(path):
        raise CMakeUnusable(path, "is a directory, not a CMake binary")
    if not os.access(path, os.X_OK):
        raise CMakeUnusable(path, "not executable")
    fingerprint = _fingerprint(path)
    if fingerprint is None:
        return CMakeBinary(path, _asked(path, timeout))
    return CMakeBinary(path, _VERSIONS.through(lambda: _asked(path, timeout), fingerprint))


def _asked(path: str, timeout: float) -> tuple[int, ...]:
    """The version `path --version` prints; CMakeUnusable when it prints none."""
    try:
        done = _version_run(path, timeout)
    except OSError as exc:
        raise CMakeUnusable(path, f"cannot run it: {exc.strerror or exc}") from None
    output = done.stdout + done.stderr
    if done.returncode != 0:
        said = _first_line(output)
        raise CMakeUnusable(
            path,
            f"`cmake --version` failed (exit {done.returncode})"
            + (f": {said}" if said else "")
            + _shim_hint(path, output),
        )
    match = _VERSION.search(done.stdout)
    if match is None:
        said = _first_line(output)
        raise CMakeUnusable(
            path,
            "`cmake --version` printed no CMake version"
            + (f" (it printed: {said})" if said else " (it printed nothing)"),
        )
    return tuple(int(g) for g in match.groups() if g is not None)


def _version(data: Any) -> tuple[int, ...]:
    """A kept version: two or three numbers, else not one this module kept."""
    version = tuple(data)
    if not 2 <= len(version) <= 3 or not all(type(p) is int and p >= 0 for p in version):
        raise ValueError("not a CMake version")
    return version


# The version of a CMake binary (ELF, Mach-O), kept per binary: what `_VERSION` reads
# out of what it prints decides the answer.
_VERSIONS: Memo[tuple[int, ...]] = Memo(
    "cmake-version", constant(_VERSION.pattern.encode()), encode=list, decode=_version
)


def _fingerprint(path: str) -> bytes | None:
    """What a CMake binary's kept version is keyed by: its final target, size, times and
    inode. None for a script (pip's launcher, a wrapper): what it prints depends on what it
    runs, which its own file does not show, so it is asked every time."""
    try:
        real = os.path.realpath(path)
        with open(real, "rb") as stream:
            magic = stream.read(4)
        info = os.stat(real)
    except OSError:
        return None
    if magic not in _BINARY_MAGIC:
        return None
    decided_by = [real, info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino]
    return repr(decided_by).encode()


def _version_run(path: str, timeout: float) -> subprocess.CompletedProcess[str]:
    """`path --version`, ended at `timeout` or when it stays stopped (SIGSTOP)."""
    with subprocess.Popen(
        [path, "--version"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    ) as process:
        returncode, halted = wait_running(process, time.monotonic() + timeout)
        if returncode is None:
            process.kill()
            process.wait()
            reason = (
                f"`cmake --version` was stopped and did not continue within {HALT_GRACE:g} s"
                if halted
                else f"`cmake --version` did not finish within {timeout:g} s"
            )
            raise CMakeUnusable(path, reason)
        # A version banner fits the pipe: reading after the exit cannot block.
        out, err = process.communicate()
    text = (out.decode("utf-8", "replace"), err.decode("utf-8", "replace"))
    return subprocess.CompletedProcess([path, "--version"], returncode, *text)


def _first_line(output: str) -> str:
    """The line that says what went wrong. A Python script that fails prints a traceback,
    whose first line says nothing and whose last line names the error."""
    lines = [line.strip() for line in output.strip().splitlines() if line.strip()]
    if not lines:
        return ""
    if lines[0] == _TRACEBACK:
        return lines[-1]
    return lines[0]


def _shim_hint(path: str, output: str) -> str:
    """pip's `bin/cmake` is a Python script that imports the `cmake` package of the
    environment it was installed into; the real binary sits beside that package."""
    if _TRACEBACK not in output:
        return ""
    real = Path(path).parent.parent / "cmake" / "data" / "bin" / "cmake"
    if real.is_file():
        return f" (a Python launcher of another environment; the CMake binary is {real})"
    return " (a Python launcher, not a CMake binary)"
