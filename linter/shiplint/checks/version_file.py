"""Installed config version file rules SL123-SL125: find_package(<pkg> <version>) answers right.

Each reads what real CMake answered when the file was asked as find_package asks it
(`shiplint.cmake_eval.version_file`), per CMake, so each route is judged on its own.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from shiplint.cmake_eval.model import MissingVersionFile, VersionFileEvaluation
from shiplint.diagnostics import Finding, Subject
from shiplint.manifest.model import Manifest
from shiplint.rule import Rule


def version_file_missing(manifest: Manifest, model: MissingVersionFile) -> Iterator[Finding]:
    """SL123: an installed config has no version file beside it."""
    first, second = model.names
    package = manifest.cmake.package
    yield Finding(
        message=(
            f"no {first} or {second} beside the config: find_package({package} <version>) "
            "rejects this package whatever version is asked for"
        ),
        location=model.config,
        subject=Subject(artifact=model.label),
        hint=(
            "Install a version file beside the config "
            "(write_basic_package_version_file(... COMPATIBILITY SameMajorVersion)) "
            "holding the wheel's version."
        ),
    )


def version_differs_from_artifact(
    manifest: Manifest, model: VersionFileEvaluation
) -> Iterator[Finding]:
    """SL124: PACKAGE_VERSION, as CMake evaluates the file, is not the artifact's version."""
    if model.reported is None or model.expected is None or model.reported == model.expected:
        return
    said = (
        f"sets PACKAGE_VERSION to {model.reported!r}"
        if model.reported
        else "sets no PACKAGE_VERSION"
    )
    declared = model.declared or model.expected
    yield Finding(
        message=(
            f"{said} on {model.on}, but the wheel is version {declared} "
            f"(expected {model.expected!r}, its numeric release)"
        ),
        location=model.version_file,
        subject=Subject(artifact=model.label, cmake_version=model.cmake_version),
        hint=(
            "Generate the version file from the version the wheel is built with "
            "(one source for both), not from a number kept by hand."
        ),
    )


def version_compatibility_wrong(
    manifest: Manifest, model: VersionFileEvaluation
) -> Iterator[Finding]:
    """SL125: the version file rejects the package's own major.minor, accepts the next
    major, or cannot be evaluated."""
    package = manifest.cmake.package
    if model.failure is not None:
        yield _finding(
            model, f"cannot be evaluated as find_package({package} <version>) does: {model.failure}"
        )
        return
    same, following = model.same_minor, model.next_major
    if same is not None and not same.accepted:
        why = " (PACKAGE_VERSION_UNSUITABLE)" if same.unsuitable else ""
        yield _finding(
            model,
            f"rejects find_package({package} {same.requested}), its own major.minor, "
            f"on {model.on}{why}",
        )
    if following is not None and following.accepted:
        yield _finding(
            model,
            f"accepts find_package({package} {following.requested}), a major it is not, "
            f"on {model.on}: a consumer written for that major configures against this one",
        )


def _finding(model: VersionFileEvaluation, message: str) -> Finding:
    return Finding(
        message=message,
        location=model.version_file,
        subject=Subject(artifact=model.label, cmake_version=model.cmake_version),
        hint=(
            "Answer requests by major version: compatible when the major is the same and "
            "the version is at least the one asked for (CMake's SameMajorVersion)."
        ),
    )


RULES: tuple[Rule[Any], ...] = (
    Rule("SL123", MissingVersionFile, version_file_missing),
    Rule("SL124", VersionFileEvaluation, version_differs_from_artifact),
    Rule("SL125", VersionFileEvaluation, version_compatibility_wrong),
)
