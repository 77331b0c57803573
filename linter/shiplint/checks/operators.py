"""Operator-registration rules (SL4xx): collisions, misplaced namespaces, declared sets, registry copies.

Each rule reads one `OperatorRegistrations` (one artifact). See docs/findings/operators.md.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from itertools import combinations
from typing import Any

from shiplint.diagnostics import Finding, Location, Subject
from shiplint.manifest.model import Library, Manifest, Registry
from shiplint.operators.model import (
    LibraryRegistrations,
    OperatorRegistrations,
    RegisteredOperator,
    Status,
)
from shiplint.plural import counted, noun
from shiplint.rule import Rule

_SHOWN = 5


def _location(model: OperatorRegistrations, lib: LibraryRegistrations) -> Location:
    return model.location(lib.member)


def _subject(
    model: OperatorRegistrations, lib: LibraryRegistrations, operator: str | None = None
) -> Subject:
    return Subject(library=lib.library or lib.file_name, operator=operator, artifact=model.artifact)


def _listed(names: list[str]) -> str:
    shown = ", ".join(names[:_SHOWN])
    return shown if len(names) <= _SHOWN else f"{shown} and {len(names) - _SHOWN} more"


def _declared_apart(
    manifest: Manifest, first: LibraryRegistrations, second: LibraryRegistrations
) -> bool:
    """True when the manifest says the two are never loaded together and nothing forces them to be."""
    if first.member in second.closure or second.member in first.closure:
        return False  # one loads the other: a declared conflict cannot keep them apart
    if first.library is None or second.library is None:
        return False
    return any(
        first.library in c.libraries and second.library in c.libraries for c in manifest.conflicts
    )


def operator_registered_twice(
    manifest: Manifest, model: OperatorRegistrations
) -> Iterator[Finding]:
    """SL401: two libraries (or one, twice) register the same kernel into one registry."""
    registering = [lib for lib in model.libraries if lib.status is Status.TABLES]
    for lib in registering:
        for operator, count in sorted(
            Counter(lib.operators).items(), key=lambda i: i[0].sort_key()
        ):
            if count > 1:
                yield _twice_in_one(model, lib, operator, count)
    for first, second in combinations(registering, 2):
        shared_owners = {u.owner for u in first.uses if u.owner} & {
            u.owner for u in second.uses if u.owner
        }
        if not shared_owners or _declared_apart(manifest, first, second):
            continue
        owner = sorted(shared_owners)[0]
        owner_name = owner.rsplit("/", 1)[-1]
        for operator in sorted(
            set(first.operators) & set(second.operators), key=RegisteredOperator.sort_key
        ):
            yield Finding(
                message=(
                    f"{second.label} and {first.label} both register {operator.describe()} "
                    f"into the operator registry of {owner_name}; a process that loads both "
                    f"aborts with 'Re-registering {operator.name}'"
                ),
                location=_location(model, second),
                subject=_subject(model, second, operator.name),
                hint=(
                    f"Register {operator.name} from one library only: make {second.label} "
                    f"resolve the kernels from {first.label} (DT_NEEDED) instead of carrying "
                    "its own table, or declare the two as a conflict and keep them out of one process."
                ),
            )


def _twice_in_one(
    model: OperatorRegistrations,
    lib: LibraryRegistrations,
    operator: RegisteredOperator,
    count: int,
) -> Finding:
    return Finding(
        message=(
            f"{lib.label} registers {operator.describe()} {count} times; loading it aborts "
            f"with 'Re-registering {operator.name}'"
        ),
        location=_location(model, lib),
        subject=_subject(model, lib, operator.name),
        hint="Remove the duplicate kernel from the library's generated tables (two yaml entries, or two linked registration units).",
    )


def operator_namespace_of_another_library(
    manifest: Manifest, model: OperatorRegistrations
) -> Iterator[Finding]:
    """SL402: a library registers operators of a namespace the manifest gives to another library."""
    owner_of: dict[str, Library] = {}
    for library in manifest.libraries:
        for namespace in library.owns.operator_namespaces:
            owner_of.setdefault(namespace, library)
    for lib in model.libraries:
        if not lib.operators or lib.status is Status.NONE:
            continue
        by_namespace: dict[str, set[str]] = {}
        for operator in lib.operators:
            by_namespace.setdefault(operator.namespace, set()).add(operator.name)
        for namespace, names in sorted(by_namespace.items()):
            owner = owner_of.get(namespace)
            if owner is None or owner.name == lib.library:
                continue
            yield Finding(
                message=(
                    f"{lib.label} registers {counted(len(names), 'operator')} of namespace "
                    f"{namespace} ({_listed(sorted(names))}), which the manifest gives to "
                    f"{owner.name}"
                ),
                location=_location(model, lib),
                subject=_subject(model, lib, f"{namespace}::*"),
                hint=(
                    f"Resolve these kernels from {owner.name} instead of registering a copy, or "
                    f"correct `owns.operator_namespaces` in the manifest if {namespace} moved."
                ),
            )


def registered_operators_differ_from_manifest(
    manifest: Manifest, model: OperatorRegistrations
) -> Iterator[Finding]:
    """SL403: the set a library registers is not the one the manifest declares for it."""
    for lib in model.libraries:
        declared = manifest.library(lib.library) if lib.library else None
        if declared is None or lib.status is Status.NOT_DETERMINED:
            continue
        owns = declared.owns
        names = set(lib.operator_names())
        problems: list[str] = []
        if owns.operator_count is not None and len(names) != owns.operator_count:
            problems.append(
                f"{counted(len(names), 'operator')}, the manifest declares {owns.operator_count}"
            )
        if owns.operators:
            missing = sorted(set(owns.operators) - names)
            extra = sorted(names - set(owns.operators))
            if missing:
                problems.append(f"missing declared {_listed(missing)}")
            if extra:
                problems.append(f"undeclared {_listed(extra)}")
        if owns.operator_namespaces:
            spaces = {n.split("::", 1)[0] for n in names}
            extra_spaces = sorted(spaces - set(owns.operator_namespaces))
            silent = sorted(set(owns.operator_namespaces) - spaces)
            if extra_spaces:
                problems.append(
                    f"operators of undeclared {noun(len(extra_spaces), 'namespace')} "
                    f"{', '.join(extra_spaces)}"
                )
            if silent:
                problems.append(
                    f"no operator of declared {noun(len(silent), 'namespace')} {', '.join(silent)}"
                )
        if problems:
            yield Finding(
                message=f"{lib.label} registers " + "; ".join(problems),
                location=_location(model, lib),
                subject=_subject(model, lib),
                hint=(
                    "Rebuild the library from the operator list it is meant to carry, or update "
                    "`owns.operator_count`, `owns.operators` or `owns.operator_namespaces` in the "
                    "manifest to what it is meant to register."
                ),
            )


def _expected_owners(manifest: Manifest, registry: Registry) -> set[str]:
    symbols = set(registry.symbols)
    return {lib.name for lib in manifest.libraries if symbols & set(lib.owns.symbols)}


def unexpected_registry_copy(manifest: Manifest, model: OperatorRegistrations) -> Iterator[Finding]:
    """SL404: a library carries a registry the manifest gives to another library (or no one expects twice)."""
    for registry in manifest.registries:
        owners = [lib for lib in model.libraries if registry.name in lib.owns]
        expected = _expected_owners(manifest, registry)
        for lib in owners:
            if expected:
                if lib.library in expected:
                    continue
                because = f"the manifest expects it only in {', '.join(sorted(expected))}"
            else:
                others = [o.label for o in owners if o is not lib]
                if not others:
                    continue
                because = f"{', '.join(others)} carry another copy"
            yield Finding(
                message=(
                    f"{lib.label} strongly defines {', '.join(registry.symbols)}: it carries "
                    f"its own copy of the {registry.name} registry; {because}"
                ),
                location=_location(model, lib),
                subject=_subject(model, lib),
                hint=(
                    "Link the registry's library (DT_NEEDED) instead of compiling the registry "
                    "into this one; a second registry splits the operator table, so kernels "
                    "registered into one are missing from the other."
                ),
            )


def registrations_not_determined(
    manifest: Manifest, model: OperatorRegistrations
) -> Iterator[Finding]:
    """SL405: a library may register operators, but which cannot be read from the binary."""
    for lib in model.libraries:
        if lib.status is Status.NOT_DETERMINED:
            yield Finding(
                message=f"the operators {lib.label} registers are not determined: {lib.reason}",
                location=_location(model, lib),
                subject=_subject(model, lib),
                hint=(
                    "Collisions involving this library cannot be ruled out from the binary; "
                    "check it at run time, or waive this with the reason it is safe."
                ),
            )


def registry_owner_not_found(manifest: Manifest, model: OperatorRegistrations) -> Iterator[Finding]:
    """SL406: a library imports a registry that nothing on its NEEDED path in the artifact defines."""
    for lib in model.libraries:
        for use in lib.uses:
            if use.owner is None:
                yield Finding(
                    message=(
                        f"{lib.label} imports the {use.registry} registry, but no library its "
                        "NEEDED entries reach inside the artifact defines it"
                    ),
                    location=_location(model, lib),
                    subject=_subject(model, lib),
                    hint=(
                        "Add the registry's library to its DT_NEEDED entries (link it), or ship "
                        "the library that defines it where its RUNPATH points."
                    ),
                )


RULES: tuple[Rule[Any], ...] = (
    Rule("SL401", OperatorRegistrations, operator_registered_twice),
    Rule("SL402", OperatorRegistrations, operator_namespace_of_another_library),
    Rule("SL403", OperatorRegistrations, registered_operators_differ_from_manifest),
    Rule("SL404", OperatorRegistrations, unexpected_registry_copy),
    Rule("SL405", OperatorRegistrations, registrations_not_determined),
    Rule("SL406", OperatorRegistrations, registry_owner_not_found),
)
