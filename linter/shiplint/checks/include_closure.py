"""Rules of the include closure (SL343-SL348): what a consumer's `#include` cannot find.

Every rule reads one `IncludeClosure` (see `shiplint.include_closure.model`): the
includes of the public headers no published include directory, declared external
package or system header answers, judged for the artifact's platform. An include
under a condition only the consumer's build decides is SL346 (info) whatever is
missing, never an error.
"""

from __future__ import annotations

from collections.abc import Iterator

from shiplint.diagnostics import Finding, Subject
from shiplint.include_closure.model import (
    IncludeClosure,
    IncludeClosureNotChecked,
    Missing,
    UnresolvedInclude,
)
from shiplint.manifest.model import Manifest
from shiplint.rule import Rule

_SHOWN = 4


def _spelled(include: UnresolvedInclude) -> str:
    return f"<{include.spelling}>" if include.angled else f'"{include.spelling}"'


def _dirs(model: IncludeClosure) -> str:
    return ", ".join(model.include_dirs)


def _findings(model: IncludeClosure, missing: Missing) -> Iterator[UnresolvedInclude]:
    for include in model.unresolved:
        if include.missing is missing and not include.conditional:
            yield include


def _finding(model: IncludeClosure, include: UnresolvedInclude, message: str, hint: str) -> Finding:
    assert include.location is not None
    return Finding(
        message=message,
        location=include.location,
        subject=Subject(artifact=model.label),
        hint=hint,
    )


def include_not_shipped(manifest: Manifest, model: IncludeClosure) -> Iterator[Finding]:
    """SL343: a public header includes a header the artifact does not ship."""
    for include in _findings(model, Missing.NOT_SHIPPED):
        yield _finding(
            model,
            include,
            f"includes {_spelled(include)}, which is in no published include directory "
            f"({_dirs(model)}), no declared external package and no system header for "
            f"{model.platform or 'any platform'}: a consumer's compile stops with "
            f"'No such file or directory'",
            "Ship the header under a published include directory, drop the include from "
            "the public header, or declare its package in headers.external.",
        )


def header_outside_include_dirs(manifest: Manifest, model: IncludeClosure) -> Iterator[Finding]:
    """SL344: the included header ships, but under no published include directory."""
    for include in _findings(model, Missing.OUTSIDE_INCLUDE_DIRS):
        yield _finding(
            model,
            include,
            f"includes {_spelled(include)}, which the artifact ships as {include.shipped_at}, "
            f"outside every published include directory ({_dirs(model)}): a consumer's "
            f"compile cannot find it",
            "Install the header under a published include directory, or publish its "
            "directory in the target's INTERFACE_INCLUDE_DIRECTORIES.",
        )


def configured_header_not_shipped(manifest: Manifest, model: IncludeClosure) -> Iterator[Finding]:
    """SL345: a header the build writes (config.h, *_macros.h, *_generated.h) is included,
    never shipped."""
    for include in _findings(model, Missing.CONFIGURED):
        yield _finding(
            model,
            include,
            f"includes {_spelled(include)}, a header the build writes (configured or "
            f"generated), which the artifact does not ship under any published include directory ({_dirs(model)}): every "
            f"consumer's compile stops there",
            "Install the configured header (install(FILES ${CMAKE_CURRENT_BINARY_DIR}/...)) "
            "beside the headers that include it.",
        )


def include_under_unknown_condition(manifest: Manifest, model: IncludeClosure) -> Iterator[Finding]:
    """SL346: missing includes under conditions the consumer's build decides (one finding
    per header, at the first of them)."""
    by_header: dict[str, list[UnresolvedInclude]] = {}
    for include in model.unresolved:
        if include.conditional:
            by_header.setdefault(include.header, []).append(include)
    for found in by_header.values():
        spelled = [_spelled(i) + (f" (line {i.line})" if i is not found[0] else "") for i in found]
        shown = ", ".join(spelled[:_SHOWN])
        more = f" (+{len(spelled) - _SHOWN} more)" if len(spelled) > _SHOWN else ""
        yield _finding(
            model,
            found[0],
            f"includes {shown}{more} under conditions the consumer's build decides; "
            f"{'they resolve' if len(found) > 1 else 'it resolves'} nowhere a consumer's "
            f"compile looks: the compile fails when such a condition holds",
            "Ship the headers, or make sure the conditions cannot hold for a consumer of "
            "this artifact (document the macro, or waive this with the reason).",
        )


def required_header_missing(manifest: Manifest, model: IncludeClosure) -> Iterator[Finding]:
    """SL347: a header the manifest requires is not shipped as a public header."""
    for pattern in model.required_missing:
        yield Finding(
            message=(
                f"ships no public header matching {pattern!r} (headers.required) under the "
                f"published include directories ({_dirs(model)})"
            ),
            location=model.location,
            subject=Subject(artifact=model.label),
            hint="Install the header again (a release that drops it breaks every consumer "
            "including it), or update headers.required if it was removed on purpose.",
        )


def closure_not_checked(manifest: Manifest, model: IncludeClosureNotChecked) -> Iterator[Finding]:
    """SL348: the artifact ships headers, but no published include directory says which
    are public."""
    if model.headers_shipped == 0:
        return
    yield Finding(
        message=f"{model.headers_shipped} header files ship, but {model.reason}",
        location=model.location,
        subject=Subject(artifact=model.label),
        hint="Publish the include directory on the imported targets "
        "(target_include_directories(... INTERFACE $<INSTALL_INTERFACE:include>)).",
    )


RULES: tuple[Rule[IncludeClosure] | Rule[IncludeClosureNotChecked], ...] = (
    Rule("SL343", IncludeClosure, include_not_shipped),
    Rule("SL344", IncludeClosure, header_outside_include_dirs),
    Rule("SL345", IncludeClosure, configured_header_not_shipped),
    Rule("SL346", IncludeClosure, include_under_unknown_condition),
    Rule("SL347", IncludeClosure, required_header_missing),
    Rule("SL348", IncludeClosureNotChecked, closure_not_checked),
)
