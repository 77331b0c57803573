"""Rules of the header probe: every public header compiles alone (SL507), and what the
probe could not do is said (SL508, SL509)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from shiplint.diagnostics import Finding, Location, Subject
from shiplint.manifest.model import Manifest
from shiplint.plural import counted
from shiplint.probes.header.model import (
    HeaderFailure,
    HeaderProbeFailed,
    HeadersNotProbed,
    HeaderSweep,
    NotRunReason,
)
from shiplint.probes.status import could_not_run, did_not_apply
from shiplint.rule import Rule


def _error(failure: HeaderFailure) -> str:
    error = failure.error
    if error is None:
        return f"the compiler reported no located error; last lines:\n{failure.tail}"
    if error.file == failure.header:
        return f"first error: {error.text}"
    where = f"{error.file}:{error.line}" if error.line is not None else error.file
    return f"first error (included from here) at {where}: {error.text}"


def header_not_self_contained(manifest: Manifest, sweep: HeaderSweep) -> Iterator[Finding]:
    """SL507: a public header does not compile on its own, or its inline code does not
    resolve against the library of the component that owns it."""
    context = sweep.context
    route = f", route {context.route}" if context.route else ""
    for failure in sweep.failures:
        location = Location(path=sweep.artifact_path, line=failure.line, member=failure.header)
        flags = (
            f"(CMake {context.cmake_version}{route}, "
            f"{counted(len(context.targets), 'imported target')})"
        )
        if failure.step == "link":
            found = failure.error.text if failure.error else f"the link failed:\n{failure.tail}"
            message = (
                f"<{failure.spelling}>'s inline code does not resolve against its owner, "
                f"component {failure.owner}, linked alone {flags}: {found}"
            )
            hint = (
                "Define what the header's inline code calls in the owning component's library, "
                "or correct `headers.owners` in the manifest if the header belongs to another."
            )
        else:
            message = (
                f"<{failure.spelling}> does not compile alone with the flags the config's "
                f"targets publish {flags}: {_error(failure)}"
            )
            hint = (
                "Include what the header uses, or, if it must only be reached through another "
                "header, say so in the manifest (`headers.exclude`) and in the header."
            )
        yield Finding(
            message=message,
            location=location,
            subject=Subject(
                component=failure.owner,
                cmake_version=context.cmake_version,
                artifact=context.artifact,
            ),
            hint=hint,
        )


_HINTS = {
    NotRunReason.OTHER_PLATFORM: "Run the header probe on a host of the artifact's platform.",
    NotRunReason.NO_TARGETS: (
        "Configure a CMake of a route with imported targets (--cmake), whose usage "
        "requirements are the flags the headers are compiled with."
    ),
    NotRunReason.NO_HEADERS: "Nothing to compile: the targets publish no include directory.",
}

RULES: tuple[Rule[Any], ...] = (
    Rule("SL507", HeaderSweep, header_not_self_contained),
    Rule("SL508", HeaderProbeFailed, could_not_run("header probe", "--header-probe")),
    Rule("SL509", HeadersNotProbed, did_not_apply("headers not probed", _HINTS)),
)
