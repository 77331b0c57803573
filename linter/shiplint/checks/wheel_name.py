"""Artifact rules SL324-SL325: a wheel's file name is one an installer can use and agrees
with its METADATA.

shiplint reads a wheel's version from its METADATA (`Version`), as an installer records
it, so a renamed wheel is checked as what it is. The file name still matters to
installers and to the rules that read it (the platform tag, the tags the requirement
markers are evaluated for, the companions a wheel is joined with): a name that is no
wheel's is said, never silently skipped.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from shiplint.artifacts.model import ArtifactKind, Inventory
from shiplint.diagnostics import Finding, Subject
from shiplint.manifest.model import Manifest
from shiplint.rule import Rule

_FORM = "{distribution}-{version}(-{build})?-{python}-{abi}-{platform}.whl"


def wheel_file_name_unusable(manifest: Manifest, model: Inventory) -> Iterator[Finding]:
    """SL324: the wheel's file name does not parse as a wheel file name."""
    if model.kind is not ArtifactKind.WHEEL:
        return
    from packaging.utils import InvalidWheelFilename, parse_wheel_filename

    try:
        parse_wheel_filename(model.label)
    except InvalidWheelFilename as error:
        metadata = model.metadata
        said = (
            f"; METADATA says {metadata.name} {metadata.version}"
            if metadata is not None and metadata.name and metadata.version
            else ""
        )
        yield Finding(
            message=f"{model.label} is not a wheel file name ({error}){said}: installers "
            "refuse it, and no platform tag or Python tag can be read from it (the platform "
            "is taken from the binaries, requirement markers are judged for this Python)",
            location=model.location(),
            subject=Subject(artifact=model.label),
            hint=f"Check the wheel under its own name, {_FORM} (what the build wrote).",
        )


def wheel_file_name_disagrees(manifest: Manifest, model: Inventory) -> Iterator[Finding]:
    """SL325: the file name's distribution or version is not METADATA's."""
    metadata = model.metadata
    if model.kind is not ArtifactKind.WHEEL or metadata is None or metadata.problem:
        return
    from packaging.utils import (
        InvalidWheelFilename,
        canonicalize_name,
        parse_wheel_filename,
    )
    from packaging.version import InvalidVersion, Version

    try:
        name, version, _, _ = parse_wheel_filename(model.label)
    except InvalidWheelFilename:
        return  # SL324
    differences = []
    if metadata.name is not None and canonicalize_name(metadata.name) != name:
        differences.append(f"distribution {name}, METADATA's Name is {metadata.name}")
    if metadata.version is not None:
        try:
            same = Version(metadata.version) == version
        except InvalidVersion:
            same = False
        if not same:
            differences.append(f"version {version}, METADATA's Version is {metadata.version}")
    if not differences:
        return
    yield Finding(
        message=f"the file name says {'; and '.join(differences)}: the version rules "
        "check METADATA's, which is what an installer records",
        location=model.location(metadata.member),
        subject=Subject(artifact=model.label),
        hint="Check the wheel under the name the build wrote; a renamed copy misleads "
        "whoever picks a wheel by its file name.",
    )


RULES: tuple[Rule[Any], ...] = (
    Rule("SL324", Inventory, wheel_file_name_unusable),
    Rule("SL325", Inventory, wheel_file_name_disagrees),
)
