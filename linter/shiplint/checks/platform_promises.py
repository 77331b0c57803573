"""Rules about what a wheel's platform tag promises (SL340-SL342, SL349), auditwheel's
questions.

The installer picks a wheel by its tag alone: a binary that needs a newer glibc or
libstdc++ than a manylinux tag promises, or a newer macOS than a `macosx_X_Y` tag
names, is installed on systems where it cannot load; a binary in a `py3-none-any`
wheel is installed everywhere. The architecture half of the question (an ELF, Mach-O
or PE machine against the tag's) is SL312's.
"""

from __future__ import annotations

from collections.abc import Iterator

from shiplint.artifacts.model import Inventory
from shiplint.artifacts.records import BinaryFormat, BinaryRecord
from shiplint.artifacts.tag_promises import (
    LinuxPromise,
    is_loader,
    linux_promise,
    macos_promise,
    version_key,
)
from shiplint.diagnostics import Finding, Subject
from shiplint.manifest.model import Manifest
from shiplint.rule import Rule


def _subject(manifest: Manifest, model: Inventory, member: str) -> Subject:
    name = model.subject_name(member)
    library = manifest.library(name)
    component = library.owns.components[0] if library and library.owns.components else None
    return Subject(component=component, library=name, artifact=model.label)


def _tags(model: Inventory) -> tuple[str, ...]:
    tag = model.listing.platform_tag
    return tuple(tag.split(".")) if tag else ()


# ------------------------------------------------------------------ SL340


def symbol_version_above_tag(manifest: Manifest, model: Inventory) -> Iterator[Finding]:
    """SL340: a binary needs a GLIBC_/GLIBCXX_/CXXABI_/GCC_ version its manylinux tag
    does not promise."""
    promises = [p for tag in _tags(model) if (p := linux_promise(tag)) is not None]
    if not promises:
        return
    # A library the package ships itself answers its own versions (a bundled copy found
    # through RUNPATH), whatever its name.
    shipped = {b.soname or b.file_name for b in model.binaries} | {
        b.file_name for b in model.binaries
    }
    for binary in model.binaries:
        if binary.format is not BinaryFormat.ELF:
            continue
        needed = _needed_versions(binary, shipped)
        for promise in promises:
            beyond = sorted(v for v in needed if promise.beyond(v))
            if beyond:
                yield _beyond_finding(manifest, model, binary, promise, beyond)
                break


def _needed_versions(binary: BinaryRecord, shipped: set[str]) -> set[str]:
    return {
        i.version
        for i in binary.imports
        if i.version is not None
        and i.file is not None
        and not is_loader(i.file)
        and i.file not in shipped
    }


def _beyond_finding(
    manifest: Manifest,
    model: Inventory,
    binary: BinaryRecord,
    promise: LinuxPromise,
    beyond: list[str],
) -> Finding:
    newest: dict[str, str] = {}
    for needed in beyond:
        prefix, _, version = needed.partition("_")
        if prefix not in newest or version_key(version) > version_key(newest[prefix]):
            newest[prefix] = version
    asked = ", ".join(f"{p}_{v}" for p, v in sorted(newest.items()))
    promised = ", ".join(f"{p}_{promise.highest(p)}" for p in sorted(newest))
    return Finding(
        message=(
            f"needs {asked}, newer than {promise.tag} promises (at most {promised}): "
            f"it fails to load on a system the tag admits"
        ),
        location=model.location(binary.name),
        subject=_subject(manifest, model, binary.name),
        hint=(
            "Build in the manylinux image of the tag (or an older toolchain), "
            "or tag the wheel for the glibc these versions need (auditwheel show names it)."
        ),
    )


# ------------------------------------------------------------------ SL341


def binary_in_pure_wheel(manifest: Manifest, model: Inventory) -> Iterator[Finding]:
    """SL341: a wheel tagged for any platform holds binaries."""
    if _tags(model) != ("any",) or not model.binaries:
        return
    for binary in model.binaries:
        if binary.format is BinaryFormat.ARCHIVE:
            continue
        yield Finding(
            message=(
                f"is a {binary.format.value} binary for {'/'.join(binary.arches) or '?'} "
                f"in a wheel tagged `any`: installers put it on every platform, "
                f"where it cannot load"
            ),
            location=model.location(binary.name),
            subject=_subject(manifest, model, binary.name),
            hint="Tag the wheel for the platform its binaries are built for.",
        )


# ------------------------------------------------------------------ SL342


def macos_minimum_above_tag(manifest: Manifest, model: Inventory) -> Iterator[Finding]:
    """SL342: a Mach-O slice needs a newer macOS than the wheel's macosx_X_Y tag."""
    promised = [(tag, p) for tag in _tags(model) if (p := macos_promise(tag)) is not None]
    if not promised:
        return
    for binary in model.binaries:
        if binary.format is not BinaryFormat.MACHO:
            continue
        for arch, minimum in zip(binary.arches, binary.min_os, strict=False):
            if not minimum:
                continue
            needs = tuple(int(p) for p in minimum.split("."))
            late = [(tag, p) for tag, p in promised if needs > p]
            if not late:
                continue
            tag, (major, minor) = late[0]
            yield Finding(
                message=(
                    f"the {arch} slice needs macOS {minimum} (LC_BUILD_VERSION minos), "
                    f"newer than {tag} promises ({major}.{minor}): it fails to load "
                    f"on the macOS releases in between"
                ),
                location=model.location(binary.name),
                subject=_subject(manifest, model, binary.name),
                hint=(
                    f"Build with MACOSX_DEPLOYMENT_TARGET={major}.{minor}, "
                    f"or tag the wheel macosx_{needs[0]}_{needs[1]}."
                ),
            )
            break


# ------------------------------------------------------------------ SL349

_GLIBC = ("libc.so.6", "ld-linux")
_MUSL = ("libc.musl-", "ld-musl-")


def libc_mismatch(manifest: Manifest, model: Inventory) -> Iterator[Finding]:
    """SL349: a binary needs the other C library than the one its tag promises."""
    tags = _tags(model)
    musl_tag = next((t for t in tags if t.startswith("musllinux")), None)
    glibc_tag = next((t for t in tags if t.startswith(("manylinux", "linux_"))), None)
    if musl_tag is None and glibc_tag is None:
        return
    for binary in model.binaries:
        if binary.format is not BinaryFormat.ELF:
            continue
        glibc = [n for n in binary.needed if n.startswith(_GLIBC)]
        versions = {i.version for i in binary.imports if i.version is not None}
        glibc += sorted(v for v in versions if v.startswith("GLIBC_"))[:1]
        musl = [n for n in binary.needed if n.startswith(_MUSL)]
        if musl_tag is not None and glibc:
            found, tag, promised = glibc, musl_tag, "musl"
        elif glibc_tag is not None and musl:
            found, tag, promised = musl, glibc_tag, "glibc"
        else:
            continue
        yield Finding(
            message=(
                f"needs {'glibc' if promised == 'musl' else 'musl'} ({', '.join(found)}), but "
                f"{tag} promises a {promised} system: it cannot load on the systems the tag "
                f"admits"
            ),
            location=model.location(binary.name),
            subject=_subject(manifest, model, binary.name),
            hint=f"Build the binary against {promised} (the {tag.split('_')[0]} image), "
            "or tag the wheel for the C library it links.",
        )


RULES: tuple[Rule[Inventory], ...] = (
    Rule("SL340", Inventory, symbol_version_above_tag),
    Rule("SL341", Inventory, binary_in_pure_wheel),
    Rule("SL342", Inventory, macos_minimum_above_tag),
    Rule("SL349", Inventory, libc_mismatch),
)
