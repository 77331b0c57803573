"""Artifact rule SL321: a wheel whose binaries load another wheel's libraries requires that wheel.

A shipped binary that NEEDs a library the manifest declares `provided` by a
distribution (`externals.provided[].distribution`, e.g. torch's libtorch.so) loads
only where that distribution is installed, so the wheel's METADATA must require it:
a `Requires-Dist` entry without an extra whose marker holds for every tag of the
wheel. Markers are evaluated with the environment each tag implies (platform,
machine, and the Python version of a `cpXY` tag; an interpreter-independent tag is
judged with the running Python's version).

A local version label naming an accelerator build (`1.5.1+cu130`) is a second reason
to require a distribution: each `externals.accelerator_builds` entry whose pattern
matches the label names distributions that must be required the same way.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from fnmatch import fnmatchcase
from typing import TYPE_CHECKING, Any

from shiplint.artifacts.model import Inventory, Resolution
from shiplint.diagnostics import Finding, Subject
from shiplint.manifest.model import Manifest
from shiplint.rule import Rule

# packaging is imported where a wheel's requirements are judged: the registry imports this
# module on every run, and packaging's markers and metadata cost a sources-only run.
if TYPE_CHECKING:
    from packaging.tags import Tag

_SHOWN = 3
_OS = (
    ("manylinux", "linux", "Linux", "posix"),
    ("musllinux", "linux", "Linux", "posix"),
    ("linux", "linux", "Linux", "posix"),
    ("macosx", "darwin", "Darwin", "posix"),
    ("win", "win32", "Windows", "nt"),
)
_MACHINES = {"amd64": "AMD64", "win32": "x86", "arm64": "ARM64"}
# The characters a requirement's leading distribution name is made of: the name
# packaging reads is a prefix of this run (after the leading whitespace).
_NAME_RUN = re.compile(r"[A-Za-z0-9._-]*")


def provider_not_required(manifest: Manifest, model: Inventory) -> Iterator[Finding]:
    """SL321: binaries NEED a provided distribution's libraries, or the version names an
    accelerator build, and the METADATA does not require the distribution."""
    yield from _providers_not_required(manifest, model)
    yield from _accelerator_not_required(manifest, model)


def _accelerator_not_required(manifest: Manifest, model: Inventory) -> Iterator[Finding]:
    metadata = model.metadata
    builds = manifest.externals.accelerator_builds
    if metadata is None or metadata.problem is not None or metadata.version is None or not builds:
        return
    from packaging.version import InvalidVersion, Version

    try:
        label = Version(metadata.version).local
    except InvalidVersion:
        return
    if label is None:
        return
    for build in builds:
        if not fnmatchcase(label.lower(), build.label.lower()):
            continue
        for distribution in build.requires:
            if _required(metadata.requires_dist, distribution, model.label):
                continue
            yield Finding(
                message=(
                    f"version {metadata.version} names the accelerator build +{label} "
                    f"(accelerator_builds label {build.label!r}), which needs {distribution}, "
                    f"but Requires-Dist does not require {distribution} for this wheel's tags"
                ),
                location=model.location(metadata.member),
                subject=Subject(artifact=model.label),
                hint=(
                    f"Require `{distribution}` in the dependencies of the +{label} build "
                    "(the build that sets the local label also sets them), without a marker "
                    "that leaves out this wheel's platform or Python."
                ),
            )


def _providers_not_required(manifest: Manifest, model: Inventory) -> Iterator[Finding]:
    metadata = model.metadata
    if metadata is None or metadata.problem is not None:
        return
    providers = [p for p in manifest.externals.provided if p.distribution]
    if not providers:
        return
    # distribution -> binary -> the provided libraries it NEEDs
    users: dict[str, dict[str, list[str]]] = {}
    for binary in model.binaries:
        for resolved in model.links.of(binary.name).resolved:
            base = resolved.needed.rsplit("/", 1)[-1]
            for provided in providers:
                if not any(fnmatchcase(base.lower(), p.lower()) for p in provided.patterns):
                    continue
                if resolved.how is Resolution.EXTERNAL and provided.distribution is not None:
                    binaries = users.setdefault(provided.distribution, {})
                    binaries.setdefault(binary.name, []).append(base)
                break
    if not users:
        return
    for distribution, needing in sorted(users.items()):
        if _required(metadata.requires_dist, distribution, model.label):
            continue
        unique = [f"{name} ({', '.join(libs)})" for name, libs in needing.items()]
        head = ", ".join(unique[:_SHOWN])
        more = f" (+{len(unique) - _SHOWN} more)" if len(unique) > _SHOWN else ""
        verb = "loads" if len(unique) == 1 else "load"
        yield Finding(
            message=(
                f"{head}{more} {verb} {distribution}'s libraries, but Requires-Dist does not "
                f"require {distribution} for this wheel's tags"
            ),
            location=model.location(metadata.member),
            subject=Subject(artifact=model.label),
            hint=(
                f"Add `{distribution}` to the project's dependencies (with the version range "
                "the binaries were built against), without a marker that leaves out this "
                "wheel's platform or Python."
            ),
        )


def _required(requirements: tuple[str, ...], distribution: str, label: str) -> bool:
    """Whether a requirement names `distribution` without a marker that leaves out one of
    the tags of the wheel `label`."""
    from packaging.utils import canonicalize_name

    wanted = canonicalize_name(distribution)
    named = [text for text in requirements if _may_name(text, wanted)]
    if not named:
        # Parsing requirements and markers imports most of packaging: a wheel that does
        # not name the distribution at all (the usual finding) is answered without it.
        return False
    from packaging.requirements import InvalidRequirement, Requirement

    environments = _environments(label)
    for text in named:
        try:
            requirement = Requirement(text)
        except InvalidRequirement:
            continue
        if canonicalize_name(requirement.name) != wanted:
            continue
        marker = requirement.marker
        if marker is None or all(marker.evaluate({**env, "extra": ""}) for env in environments):
            return True
    return False


def _may_name(text: str, wanted: str) -> bool:
    """False only when the requirement `text` cannot name the canonical name `wanted`.

    Its name is a prefix of the leading run of name characters ending at a word boundary,
    so canonicalized it is that run's canonical form, or a part of it that a `.` or `-`
    follows (an alphanumeric or `_` after it would be no boundary)."""
    from packaging.utils import canonicalize_name

    run = _NAME_RUN.match(text.lstrip())
    leading = canonicalize_name(run.group() if run else "")
    return leading == wanted or leading.startswith(f"{wanted}-")


def _environments(label: str) -> tuple[dict[str, str], ...]:
    """The marker environment each tag of the wheel implies."""
    from packaging.utils import InvalidWheelFilename, parse_wheel_filename

    try:
        tags = parse_wheel_filename(label)[3]
    except InvalidWheelFilename:
        return (_default(),)
    return tuple(_environment(tag) for tag in sorted(tags, key=str)) or (_default(),)


def _default() -> dict[str, str]:
    from packaging.markers import default_environment

    return {key: str(value) for key, value in default_environment().items()}


def _environment(tag: Tag) -> dict[str, str]:
    env = _default()
    interpreter = tag.interpreter
    if interpreter.startswith("cp") and interpreter[2:].isdigit() and len(interpreter) > 3:
        version = f"{interpreter[2]}.{interpreter[3:]}"
        env.update(
            python_version=version,
            python_full_version=f"{version}.0",
            implementation_name="cpython",
            platform_python_implementation="CPython",
        )
    platform = tag.platform
    for prefix, sys_platform, system, os_name in _OS:
        if platform.startswith(prefix):
            env.update(sys_platform=sys_platform, platform_system=system, os_name=os_name)
            break
    machine = platform.split("_")[-1] if "_" in platform else platform
    for arch in ("x86_64", "aarch64", "ppc64le", "s390x", "i686", "armv7l", "riscv64"):
        if platform.endswith(arch):
            machine = arch
    env["platform_machine"] = _MACHINES.get(machine, machine)
    return env


RULES: tuple[Rule[Any], ...] = (Rule("SL321", Inventory, provider_not_required),)
