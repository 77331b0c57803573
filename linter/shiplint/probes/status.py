"""The one shape of a probe's findings about itself: it could not run (SL505, SL508), or
a part of it did not apply (SL506, SL509).

Each probe registers its own rules with its own words (its name, the option that asks
for it, a hint per reason); the finding is built here, from the shared model
(`probes.model`), so the two probes say these things alike.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping

from shiplint.diagnostics import Finding, Subject
from shiplint.manifest.model import Manifest
from shiplint.probes.model import NotRun, R, Unavailable


def could_not_run(probe: str, option: str) -> Callable[[Manifest, Unavailable], Iterator[Finding]]:
    """The check of `probe` (its name in a message) asked for with `option` and not run."""

    def check(manifest: Manifest, model: Unavailable) -> Iterator[Finding]:
        yield Finding(
            message=f"{probe} not run on {model.artifact}: {model.reason}",
            location=model.location,
            subject=Subject(artifact=model.artifact, cmake_version=model.cmake_version),
            hint=f"Install a C++ compiler and the configured CMake, or run without {option}.",
        )

    return check


def did_not_apply(
    said: str, hints: Mapping[R, str]
) -> Callable[[Manifest, NotRun[R]], Iterator[Finding]]:
    """The check of a part of a probe that does not apply: `said` ("not probed") with
    the reason, the detail, and the hint `hints` gives for the reason."""

    def check(manifest: Manifest, model: NotRun[R]) -> Iterator[Finding]:
        yield Finding(
            message=f"{said} ({model.reason.value}): {model.detail}",
            location=model.location,
            subject=Subject(artifact=model.artifact, cmake_version=model.cmake_version),
            hint=hints[model.reason],
        )

    return check
