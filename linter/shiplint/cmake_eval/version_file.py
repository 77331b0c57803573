"""Evaluate each installed config's version file as find_package does, with real CMake.

find_package(<pkg> <version>) looks beside the config it found (`<stem>.cmake`) for
`<stem>-version.cmake`, then `<stem>Version.cmake`; it sets PACKAGE_FIND_VERSION and
its parts, includes the file in a scope of its own and reads back PACKAGE_VERSION,
PACKAGE_VERSION_COMPATIBLE, _EXACT and _UNSUITABLE. A `cmake -P` script does exactly
that, in a function per request (one run per CMake for every version file of the
artifact), so the answer is CMake's and not a reading of the file: the wheel's own
major.minor must be accepted, the next major turned away.
"""

from __future__ import annotations

import posixpath
import tempfile
from collections.abc import Sequence
from pathlib import Path

from packaging.utils import InvalidWheelFilename, parse_wheel_filename
from packaging.version import InvalidVersion, Version

from shiplint.artifacts.archive import MemberError
from shiplint.artifacts.listing import Listing
from shiplint.artifacts.metadata import read_metadata
from shiplint.artifacts.tree import Tree
from shiplint.cmake_eval.cmake_binary import CMakeBinary, CMakeUnusable, identify
from shiplint.cmake_eval.evaluate import evaluation_platform, truthy
from shiplint.cmake_eval.model import (
    MissingVersionFile,
    VersionAnswer,
    VersionFileEvaluation,
    VersionModel,
)
from shiplint.cmake_eval.replay import script_kept
from shiplint.cmake_eval.results import first_error
from shiplint.handoff import Turns
from shiplint.manifest.model import Manifest
from shiplint.platforms import Platform
from shiplint.scratch import scratch_dir

# A version file is a few kilobytes of CMake.
_LIMIT = 1024 * 1024
_SCRIPT = """\
function(shiplint_ask index file version)
  string(REPLACE "." ";" parts "${version}")
  list(LENGTH parts count)
  list(APPEND parts 0 0 0 0)
  list(GET parts 0 major)
  list(GET parts 1 minor)
  list(GET parts 2 patch)
  list(GET parts 3 tweak)
  set(PACKAGE_FIND_NAME "${SHIPLINT_PACKAGE}")
  set(PACKAGE_FIND_VERSION "${version}")
  set(PACKAGE_FIND_VERSION_COMPLETE "${version}")
  set(PACKAGE_FIND_VERSION_MIN "${version}")
  set(PACKAGE_FIND_VERSION_MAJOR ${major})
  set(PACKAGE_FIND_VERSION_MINOR ${minor})
  set(PACKAGE_FIND_VERSION_PATCH ${patch})
  set(PACKAGE_FIND_VERSION_TWEAK ${tweak})
  set(PACKAGE_FIND_VERSION_COUNT ${count})
  unset(PACKAGE_VERSION)
  unset(PACKAGE_VERSION_COMPATIBLE)
  unset(PACKAGE_VERSION_EXACT)
  unset(PACKAGE_VERSION_UNSUITABLE)
  include("${file}")
  set(answer "${index}|${version}|${PACKAGE_VERSION}|${PACKAGE_VERSION_COMPATIBLE}")
  string(APPEND answer "|${PACKAGE_VERSION_EXACT}|${PACKAGE_VERSION_UNSUITABLE}")
  file(APPEND "${SHIPLINT_OUT}" "${answer}\\n")
endfunction()
"""


def version_file_names(config: str) -> tuple[str, str]:
    """The version files find_package looks for beside `config`, in its order."""
    stem = config[: -len(".cmake")] if config.endswith(".cmake") else config
    return (f"{stem}-version.cmake", f"{stem}Version.cmake")


def artifact_version(tree: Tree, listing: Listing) -> Version | None:
    """A wheel's version: its METADATA's `Version` (what an installer records), else its
    file name's (PEP 427); None for anything else. A renamed wheel keeps its version; a
    file name that is no wheel's, or that disagrees with METADATA, is SL324/SL325's."""
    metadata = read_metadata(tree, listing.members)
    if metadata is not None and metadata.version is not None:
        try:
            return Version(metadata.version)
        except InvalidVersion:
            pass
    try:
        return parse_wheel_filename(listing.label)[1]
    except InvalidWheelFilename:
        return None


def evaluate_version_files(
    tree: Tree,
    listing: Listing,
    manifest: Manifest,
    cmakes: Sequence[str],
    timeout: float,
) -> list[VersionModel]:
    """Every installed config's version file, evaluated by each CMake (a run whose inputs
    were evaluated before is replayed: replay.py)."""
    platform = evaluation_platform(listing, manifest)
    with tempfile.TemporaryDirectory(prefix="shiplint-version-", dir=scratch_dir()) as tmp:
        return _evaluate_all(tree, listing, manifest, platform, cmakes, timeout, Path(tmp))


def _evaluate_all(
    tree: Tree,
    listing: Listing,
    manifest: Manifest,
    platform: Platform,
    cmakes: Sequence[str],
    timeout: float,
    work: Path,
) -> list[VersionModel]:
    models: list[VersionModel] = []
    found: list[tuple[str, Path]] = []
    for config in listing.configs:
        names = version_file_names(config)
        member = next((n for n in names if n in listing.member_set), None)
        if member is None:
            models.append(
                MissingVersionFile(
                    listing.label,
                    tree.location(config),
                    (posixpath.basename(names[0]), posixpath.basename(names[1])),
                )
            )
            continue
        local = work / "version" / str(len(found)) / posixpath.basename(member)
        local.parent.mkdir(parents=True)
        try:
            local.write_bytes(tree.read(member, _LIMIT))
        except MemberError as error:
            local.write_text(f'message(FATAL_ERROR "cannot be read: {error.reason}")\n')
        found.append((member, local))
    if not found:
        return models
    version = artifact_version(tree, listing)

    def one(index: int, path: str) -> list[VersionModel]:
        return _evaluate(
            tree,
            listing,
            manifest,
            platform,
            found,
            path,
            version,
            timeout,
            work / f"v{index}",
        )

    # Each run waits on CMake: each CMake runs while the next run is prepared, results
    # in the given order.
    with Turns("shiplint-version-files") as turns:
        for answers in turns.map(lambda indexed: one(*indexed), enumerate(cmakes)):
            models += answers
    return models


def _evaluate(
    tree: Tree,
    listing: Listing,
    manifest: Manifest,
    platform: Platform,
    files: list[tuple[str, Path]],
    path: str,
    version: Version | None,
    timeout: float,
    work: Path,
) -> list[VersionModel]:
    try:
        cmake = identify(path)
    except CMakeUnusable:
        # The config's own evaluation reports an unusable CMake (SL111).
        return []
    route = manifest.cmake.route_for(cmake.version)
    expected = ".".join(str(p) for p in version.release) if version is not None else None
    work.mkdir(parents=True)
    if expected is not None:
        asked = {index: ("", *_requests(expected)) for index in range(len(files))}
    else:
        # No version of its own: find_package without a version first, to learn the
        # file's, then the requests made of that.
        learnt = _ask(cmake, manifest, platform, files, {i: ("",) for i in range(len(files))},
                      timeout, work / "learn")  # fmt: skip
        asked = {
            index: ("", *_requests(reported))
            for index in range(len(files))
            if (reported := learnt.reported(index)) is not None
        }
    answers = _ask(cmake, manifest, platform, files, asked, timeout, work / "ask")
    out: list[VersionModel] = []
    for index, (member, _) in enumerate(files):
        # The request without a version first, then the two of `_requests`, if any.
        requests = asked.get(index, ())[1:]
        reported = answers.reported(index)
        out.append(
            VersionFileEvaluation(
                label=listing.label,
                platform=platform,
                version_file=tree.location(member),
                cmake=path,
                cmake_version=cmake.version_text,
                route=route.name if route else None,
                expected=expected,
                declared=str(version) if version is not None else None,
                reported=reported,
                same_minor=answers.answer(index, requests[0]) if requests else None,
                next_major=answers.answer(index, requests[1]) if requests else None,
                failure=None if reported is not None else answers.failure,
            )
        )
    return out


def _requests(version: str) -> tuple[str, ...]:
    """find_package requests of `version`'s own major.minor and of the next major;
    none when it is not a dotted number."""
    parts = version.split(".")
    if len(parts) < 2 or not all(p.isdigit() for p in parts[:2]):
        return ()
    major, minor = int(parts[0]), int(parts[1])
    return (f"{major}.{minor}", f"{major + 1}.0")


class _Answers:
    """The lines the script wrote: per version file, per request, what it answered."""

    def __init__(self, lines: list[str], failure: str | None) -> None:
        self.failure = failure
        self._by: dict[tuple[int, str], tuple[str, VersionAnswer]] = {}
        for line in lines:
            fields = line.split("|")
            if len(fields) != 6 or not fields[0].isdigit():
                continue
            index, requested, reported, compatible, exact, unsuitable = fields
            self._by[(int(index), requested)] = (
                reported,
                VersionAnswer(requested, truthy(compatible), truthy(exact), truthy(unsuitable)),
            )

    def reported(self, index: int) -> str | None:
        """PACKAGE_VERSION as the file set it for a request without a version."""
        found = self._by.get((index, ""))
        return found[0] if found is not None else None

    def answer(self, index: int, requested: str) -> VersionAnswer | None:
        found = self._by.get((index, requested))
        return found[1] if found is not None else None


def _ask(
    cmake: CMakeBinary,
    manifest: Manifest,
    platform: Platform,
    files: list[tuple[str, Path]],
    asked: dict[int, tuple[str, ...]],
    timeout: float,
    work: Path,
) -> _Answers:
    if not asked:
        return _Answers([], None)
    work.mkdir(parents=True)
    out = work / "answers.txt"
    lines = [
        _SCRIPT,
        f"set(SHIPLINT_PACKAGE {_quoted(manifest.cmake.package)})",
        f"set(SHIPLINT_OUT {_quoted(str(out))})",
    ]
    if platform.pointer_size is not None:
        # What a consumer's project would have: the version files CMake writes turn
        # away a package built for another pointer size.
        lines.append(f"set(CMAKE_SIZEOF_VOID_P {platform.pointer_size})")
    for index, requests in asked.items():
        for requested in requests:
            lines.append(
                f"shiplint_ask({index} {_quoted(str(files[index][1]))} {_quoted(requested)})"
            )
    script = work / "ask.cmake"
    script.write_text("\n".join(lines) + "\n")
    # The run's temporary directory: the laid-out version files and every run's own.
    root = work.parent.parent
    outcome = script_kept(cmake, script, work, root, (root / "version",), (out,), timeout)
    failure = None
    if outcome.timed_out:
        failure = f"did not finish within {timeout:g} s"
    elif outcome.returncode != 0:
        error = first_error(outcome.stderr)
        failure = error.message if error is not None else f"CMake exited {outcome.returncode}"
    written = out.read_text(errors="replace").splitlines() if out.is_file() else []
    return _Answers(written, failure)


def _quoted(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("$", "\\$") + '"'
