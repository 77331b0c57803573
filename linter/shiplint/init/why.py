"""Why init found nothing to write a component from, and what the user can give it.

Each cause is read from the evaluations themselves (a failed run, a NOT FOUND answer
and its message, a version test in the config's text that the given CMakes all fall on
one side of), so the message names the real cause rather than the symptom "no imported
target", and ends with the next step.
"""

from __future__ import annotations

from collections.abc import Sequence

from shiplint.init.model import ArtifactFacts, Facts

# How a user gets a CMake of a given range without touching the system: the package
# index has every release; pip's --target keeps it out of the environment.
_NEWER_CMAKE = (
    "pip install --target cmake-4 'cmake>=4,<5' and add --cmake cmake-4/cmake/data/bin/cmake"
)


_OLDEST = (3, 5)


def _text(version: tuple[int, ...]) -> str:
    return ".".join(str(p) for p in version)


def _older_cmake(below: tuple[int, ...]) -> str:
    major, minor = (*below, 0, 0)[:2]
    wanted = f"{major}.{minor - 1}" if minor > 0 else f"{major - 1}"
    return (
        f"pip install --target cmake-old 'cmake~={wanted}.0' and add "
        "--cmake cmake-old/cmake/data/bin/cmake"
    )


def no_component(facts: Facts) -> str:
    """The message for a config that gave init no imported target of a shipped library
    on any CMake: the cause, then the next step."""
    config = facts.config
    assert config is not None
    package = config.package
    runs = [(a, e) for a in facts.artifacts for e in a.evaluations]
    failed = [(a, e) for a, e in runs if e.failure is not None]
    if runs and len(failed) == len(runs):
        a, e = failed[0]
        assert e.failure is not None
        return (
            f"{a.label}: CMake {e.cmake_version} could not evaluate the {package} config: "
            f"{e.failure.message}. Nothing was published to write components from; fix what "
            "CMake reports (or try another CMake release with --cmake)."
        )
    found = [(a, e) for a, e in runs if e.failure is None and e.found]
    if not found:
        return _not_found(package, [(a, e) for a, e in runs if e.failure is None])
    versions = sorted({v for _, v in facts.cmakes})
    above = [b for b in config.boundaries if versions and b > versions[-1]]
    given = ", ".join(_text(v) for v in versions)
    if above:
        return (
            f"{package}: the config defines no imported target on CMake {given}, and its text "
            f"treats CMake {_text(above[0])} and later differently (`CMAKE_VERSION "
            f"VERSION_LESS {_text(above[0])}`): give a CMake {_text(above[0])} or newer too "
            f"({_NEWER_CMAKE}), one --cmake per route."
        )
    # A test against a CMake older than 3.5 (which CMake 4 no longer accepts as a
    # minimum, and the package index does not offer) is no route anyone can evaluate.
    below = [b for b in config.boundaries if versions and _OLDEST < b <= versions[0]]
    if below:
        return (
            f"{package}: the config defines no imported target on CMake {given}, and its text "
            f"treats CMake before {_text(below[-1])} differently: give a CMake before "
            f"{_text(below[-1])} too ({_older_cmake(below[-1])}), one --cmake per route."
        )
    return (
        f"{package}: on CMake {given} the config defines no imported target that imports a "
        f"library the artifacts ship ({_shipped(found[0][0])}); it publishes variables only. "
        "init writes components from imported targets: write them by hand "
        "(docs/manifest.md, `components`), starting from examples/."
    )


def _not_found(package: str, runs: Sequence[tuple[ArtifactFacts, object]]) -> str:
    from shiplint.cmake_eval.model import ConfigEvaluation

    parts = []
    seen: set[tuple[str, str]] = set()
    for artifact, evaluation in runs:
        assert isinstance(evaluation, ConfigEvaluation)
        key = (artifact.label, evaluation.not_found_message or "")
        if key in seen:
            continue
        seen.add(key)
        said = evaluation.not_found_message
        reason = f": {said.strip().rstrip('.')}" if said else " (it gives no reason)"
        parts.append(f"{artifact.label} ({artifact.platform}){reason}")
    return (
        f"the {package} config reports {package} NOT FOUND for every artifact given, so no "
        f"target was published to write a component from. {'; '.join(parts)}. Give init, "
        "together with this one, an artifact whose config finds the package (the wheel of a "
        "platform that ships the linkable libraries, or the companion wheel that holds them)."
    )


def _shipped(artifact: ArtifactFacts) -> str:
    names = sorted(artifact.shipped)
    shown = ", ".join(names[:4])
    return f"{shown}, ..." if len(names) > 4 else shown


def no_library(label: str, has_config: bool) -> str:
    """An artifact that holds no shared library."""
    if has_config:
        return (
            f"{label}: holds a CMake package config but no shared library: give init the "
            "wheel or tree that ships the libraries too (a runtime wheel the config's "
            "distribution requires), in the same run"
        )
    return f"{label}: holds no shared library and no CMake package config to write a manifest for"


def no_config(labels: Sequence[str]) -> str:
    return (
        f"{', '.join(labels)}: no CMake package config (<Pkg>Config.cmake, <pkg>-config.cmake). "
        "When another distribution ships the config (a -devel or -dev wheel beside the "
        "runtime wheel), give init both in the same run."
    )
