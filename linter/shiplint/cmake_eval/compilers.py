"""The probe's compiler detection, done once per CMake and host toolchain, then reused.

Enabling C and CXX (see languages.py) makes every configure run identify both
compilers, their ABI and features: about half a second of compiling per run, the
largest part of an evaluation. CMake itself skips that work in a build tree it
has configured before: it loads `CMakeFiles/<version>/CMake<LANG>Compiler.cmake`
and `CMakeSystem.cmake` when the cache says the platform is initialised. So the
first run for a (CMake, platform, toolchain) detects in a tiny project of its own
(nothing of the package is in it, so nothing of one package's evaluation leaks
into another's), and the files and cache entries it produced are kept in the
user cache directory. Every later probe starts from a copy of them, as from a
build tree that detected once.

A kept detection is trusted only while the toolchain is the one it saw: every
absolute path it names (compiler, linker, archiver...) must still have the same
target, size, modification time and inode, and every compiler name CMake looks up
must still resolve to the same file on PATH. Anything else is a miss and is
detected again. Entries are a memo of the user cache (`shiplint.memo`, keyed by
this module's code too; `shiplint.cache` writes them whole or not at all and
authenticates them when read: the kept files are CMake code every probe includes,
so only an entry this user's shiplint wrote is used). Its names are
checked again when read and before seeding: the version directory is a version,
each file one of CMake's platform files, never a path.

Older CMakes of a run may skip the ABI part of theirs (abi_sharing.py). A probe
made without languages (compiler_need.py) starts the same way from a detection of
the system alone (`project(... NONE)`): CMake's own questions about the host
(`uname`) are then asked there, never beside the config's.
"""

from __future__ import annotations

import functools
import json
import os
import re
import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from shiplint import cache
from shiplint.cmake_eval.cmake_binary import CMakeBinary
from shiplint.fastclass import dataclass
from shiplint.memo import Memo

# Every name CMake's compiler lookup tries for C and CXX (CMakeDetermine{C,CXX}Compiler),
# plus languages.py's. Checking more names than CMake would pick from only makes the
# cache more cautious: installing any of them counts as a changed toolchain.
_LOOKED_UP = (
    "cc", "gcc", "cl", "bcc", "xlc", "icx", "clang",
    "c++", "CC", "g++", "aCC", "xlC", "icpx", "clang++",
)  # fmt: skip
_PLATFORM_FILES = re.compile(r"CMake(System|\w+Compiler)\.cmake")
# CMake's version directory (CMakeFiles/<CMAKE_VERSION>): a release, a candidate or a
# development build ("3.29.20240101-gabcdef"). Nothing else is ever a directory name here.
_VERSION_DIR = re.compile(r"[0-9]+(\.[0-9]+){1,3}(-[A-Za-z0-9]+(\.[A-Za-z0-9]+)*)?")
_ABSOLUTE = re.compile(r'"(/[^"\n]+)"|=(/[^\n]+)$', re.MULTILINE)
# Only the platform information: no project, no package, no path of the run.
_DETECT_PROJECT = (
    "cmake_minimum_required(VERSION 3.21)\n{before}project(shiplint_probe {languages})\n"
)


@dataclass(frozen=True)
class Detection:
    """What one detection produced: the version directory's files and the cache entries."""

    version_dir: str
    files: dict[str, str]
    cache: str


def inputs(cmake: CMakeBinary, arguments: Sequence[str], languages: Sequence[str]) -> bytes:
    """What decides the detection for this CMake, platform arguments and languages (its
    memo's input): the CMake binary, and the toolchain (toolchain_key's)."""
    binary = os.stat(cmake.path)
    decided_by = [
        os.path.realpath(cmake.path),
        [binary.st_size, binary.st_mtime_ns, binary.st_ino],
        cmake.version_text,
        toolchain(arguments, languages),
    ]
    return json.dumps(decided_by).encode()


def entry_key(given: bytes) -> str:
    """The user-cache name of the detection decided by `given` (inputs())."""
    return _KEPT.key(given)


def load(given: bytes) -> Detection | None:
    """The kept detection for `given` (inputs()), or None when there is none or its
    toolchain changed."""
    return _KEPT.get(given)


def held(given: bytes) -> bool:
    """Whether a detection is kept for `given` (inputs()), without checking that its
    toolchain is unchanged (load() does): whether one is worth making ahead."""
    return _KEPT.holds(given)


def _well_formed(detection: Detection) -> bool:
    """Whether every name is one CMake writes (seed() joins them to a build tree: a
    `..` or an absolute name would write elsewhere) and every text is text."""
    return (
        isinstance(detection.version_dir, str)
        and _VERSION_DIR.fullmatch(detection.version_dir) is not None
        and all(
            isinstance(name, str) and _PLATFORM_FILES.fullmatch(name) and isinstance(text, str)
            for name, text in detection.files.items()
        )
        and isinstance(detection.cache, str)
    )


def store(given: bytes, detection: Detection) -> None:
    """Keep `detection` for `given` (inputs()) with the fingerprints of the toolchain it saw."""
    if _well_formed(detection):
        _KEPT.put(detection, given)


def _encode(detection: Detection) -> tuple[Any, ...]:
    texts = [*detection.files.values(), detection.cache]
    # The tools the detection found (compiler, linker, archiver...): files, not directories.
    found = {m[0] or m[1] for text in texts for m in _ABSOLUTE.findall(text)}
    named = sorted(name for name in found if os.path.isfile(name))
    return (
        detection.version_dir,
        detection.files,
        detection.cache,
        _fingerprints(named),
        _lookup(),
    )


def _decode(raw: Any) -> Detection:
    """The kept detection, refused (ValueError: a miss) when a name is not one CMake
    writes or the toolchain it saw changed."""
    version_dir, files, text, tools, lookup = raw
    detection = Detection(version_dir, dict(files), text)
    if not _well_formed(detection):
        raise ValueError("a compiler detection with names CMake does not write")
    if not isinstance(tools, dict) or tools != _fingerprints(tools) or lookup != _lookup():
        raise ValueError("the toolchain changed since it was detected")
    return detection


@functools.cache
def _identity() -> bytes:
    """The code that decides what a detection keeps and how it is checked: this module's,
    and abi_sharing.py's, which decides what an older CMake's detection was given."""
    here = Path(__file__)
    return cache.source_bytes((here, here.with_name("abi_sharing.py")))


_KEPT: Memo[Detection] = Memo("cmake-compilers", _identity, encode=_encode, decode=_decode)


def detection_project(directory: Path, languages: Sequence[str], before: str = "") -> Path:
    """A project that only enables `languages`, after the commands `before` (abi_sharing's
    answers); returns its source directory."""
    source = directory / "src"
    source.mkdir(parents=True, exist_ok=True)
    # Without languages: the system's determination alone (CMakeSystem.cmake).
    text = _DETECT_PROJECT.format(before=before, languages=" ".join(languages) or "NONE")
    (source / "CMakeLists.txt").write_text(text, encoding="utf-8")
    return source


def harvest(build: Path, run_directory: Path) -> Detection | None:
    """What a detection run left in `build`, without anything naming `run_directory`
    (its paths differ in every run); None when the run left no platform files."""
    files_dir = build / "CMakeFiles"
    try:
        candidates = [d for d in files_dir.iterdir() if (d / "CMakeSystem.cmake").is_file()]
        cache_lines = (build / "CMakeCache.txt").read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return None
    if len(candidates) != 1:
        return None
    version_dir = candidates[0]
    if not _VERSION_DIR.fullmatch(version_dir.name):
        return None
    try:
        files = {
            f.name: f.read_text(encoding="utf-8")
            for f in version_dir.iterdir()
            if _PLATFORM_FILES.fullmatch(f.name) and f.is_file()
        }
    except (OSError, UnicodeDecodeError):
        return None
    marker = str(run_directory)
    if any(marker in text for text in files.values()):
        return None
    return Detection(version_dir.name, files, _cache_without(cache_lines, marker))


def _cache_without(lines: list[str], marker: str) -> str:
    """CMakeCache.txt without the entries (and their `//` help lines) naming `marker`:
    a help line must be followed by its entry, or CMake refuses the file."""
    kept: list[str] = []
    help_lines: list[str] = []
    for line in lines:
        if line.startswith("//"):
            help_lines.append(line)
            continue
        if marker not in line:
            kept += help_lines
            kept.append(line)
        help_lines = []
    return "\n".join(kept) + "\n"


def seed(build: Path, detection: Detection) -> None:
    """Lay `detection` out in a fresh build tree, as CMake left it after detecting."""
    if not _well_formed(detection):
        raise ValueError("a compiler detection with names CMake does not write")
    version_dir = build / "CMakeFiles" / detection.version_dir
    version_dir.mkdir(parents=True, exist_ok=True)
    for name, text in detection.files.items():
        (version_dir / name).write_text(text, encoding="utf-8")
    (build / "CMakeCache.txt").write_text(detection.cache, encoding="utf-8")


def _fingerprints(paths: Sequence[str] | dict[str, object]) -> dict[str, object]:
    """Per path: its final target, size, modification time and inode (None: no file)."""
    out: dict[str, object] = {}
    for path in paths:
        try:
            real = os.path.realpath(path)
            info = os.stat(real)
        except (OSError, ValueError):
            out[path] = None
            continue
        out[path] = [real, info.st_size, info.st_mtime_ns, info.st_ino]
    return out


def _lookup() -> dict[str, object]:
    """Each compiler name CMake may look up, as found on PATH now (its fingerprint)."""
    path = os.environ.get("PATH", "")
    out: dict[str, object] = {}
    for name in _LOOKED_UP:
        hit = shutil.which(name, path=path)
        out[name] = None if hit is None else _fingerprints([hit])[hit]
    return out


def toolchain(arguments: Sequence[str], languages: Sequence[str]) -> list[object]:
    uname = os.uname() if hasattr(os, "uname") else None
    return [
        list(arguments),
        list(languages),
        os.environ.get("PATH", ""),
        # CMakeSystem.cmake records the host's kernel release.
        [uname.release, uname.machine] if uname else [],
    ]
