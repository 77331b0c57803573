"""SL401-SL406 on hand-built OperatorRegistrations: each fires, and stays quiet when it should."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import replace

import pytest
from shiplint.checks import operators as rules
from shiplint.diagnostics import Finding, Location
from shiplint.manifest.model import Conflict, LibraryKind, Manifest, Ownership, Registry
from shiplint.operators.model import (
    LibraryRegistrations,
    OperatorRegistrations,
    RegisteredOperator,
    RegistryUse,
    Status,
)

from tests.builders import library, manifest

REGISTRY = Registry("ops", ("pkg::runtime::register_kernels",))
RUNTIME = "pkg/lib/libpkg.so"


def op(name: str, key: str | None = None) -> RegisteredOperator:
    return RegisteredOperator(name, key)


def lib(
    member: str,
    *ops: RegisteredOperator,
    name: str | None = None,
    status: Status = Status.TABLES,
    owner: str | None = RUNTIME,
    owns: tuple[str, ...] = (),
    closure: tuple[str, ...] = (RUNTIME,),
    reason: str | None = None,
) -> LibraryRegistrations:
    uses = () if status is Status.NONE else (RegistryUse("ops", owner),)
    return LibraryRegistrations(member, name, status, owns, uses, tuple(ops), reason, closure)


RUNTIME_LIB = lib(RUNTIME, name="pkg", owner=RUNTIME, owns=("ops",), closure=())


def model(*libs: LibraryRegistrations) -> OperatorRegistrations:
    return OperatorRegistrations("pkg.whl", None, (RUNTIME_LIB, *libs), Location("pkg.whl"))


def base_manifest(**owns: Ownership) -> Manifest:
    libs = [
        library("pkg", LibraryKind.RUNTIME, owns=Ownership(symbols=REGISTRY.symbols)),
        library("pkg_quant", owns=owns.get("pkg_quant", Ownership())),
        library("plugin", LibraryKind.PLUGIN),
    ]
    return manifest(tuple(libs), registries=(REGISTRY,))


QUANT = "pkg/lib/libpkg_quant.so"
PLUGIN = "pkg/plugin/libplugin.so"


def run(
    check: Callable[[Manifest, OperatorRegistrations], Iterable[Finding]],
    m: Manifest,
    registrations: OperatorRegistrations,
) -> list[Finding]:
    return list(check(m, registrations))


# ---------------------------------------------------------------- SL401


def test_sl401_names_operator_both_libraries_and_owner() -> None:
    found = run(
        rules.operator_registered_twice,
        base_manifest(),
        model(
            lib(QUANT, op("q::add.out"), op("q::mul.out"), name="pkg_quant"),
            lib(PLUGIN, op("q::add.out"), op("p::x.out"), name="plugin"),
        ),
    )
    assert [f.subject.operator for f in found] == ["q::add.out"]
    message = found[0].message
    assert "libplugin.so" in message and "libpkg_quant.so" in message
    assert "registry of libpkg.so" in message and "Re-registering q::add.out" in message
    assert found[0].location == Location("pkg.whl", member=PLUGIN)
    assert found[0].subject.library == "plugin"


@pytest.mark.parametrize(
    "first, second, conflicts",
    [
        # Different kernel keys of one operator coexist in the runtime.
        (
            lib(QUANT, op("q::cast.out", "v1/6;0"), name="pkg_quant"),
            lib(PLUGIN, op("q::cast.out", "v1/3;0"), name="plugin"),
            (),
        ),
        # Two separate registries: the names never meet.
        (
            lib(QUANT, op("q::add.out"), name="pkg_quant"),
            lib(PLUGIN, op("q::add.out"), name="plugin", owner=PLUGIN, owns=("ops",), closure=()),
            (),
        ),
        # Declared never to share a process, and neither loads the other.
        (
            lib(QUANT, op("q::add.out"), name="pkg_quant"),
            lib(PLUGIN, op("q::add.out"), name="plugin"),
            (Conflict(("pkg_quant", "plugin"), "export plugin vs runtime kernels"),),
        ),
        # Unknown registrations are SL405's business, not a collision.
        (
            lib(QUANT, op("q::add.out"), name="pkg_quant"),
            lib(PLUGIN, name="plugin", status=Status.NOT_DETERMINED, reason="code"),
            (),
        ),
    ],
)
def test_sl401_quiet(
    first: LibraryRegistrations, second: LibraryRegistrations, conflicts: tuple[Conflict, ...]
) -> None:
    m = replace(base_manifest(), conflicts=conflicts)
    assert run(rules.operator_registered_twice, m, model(first, second)) == []


def test_sl401_conflict_cannot_separate_a_library_from_its_dependency() -> None:
    m = replace(base_manifest(), conflicts=(Conflict(("pkg_quant", "plugin"), "apart"),))
    plugin = lib(PLUGIN, op("q::add.out"), name="plugin", closure=(RUNTIME, QUANT))
    found = run(
        rules.operator_registered_twice,
        m,
        model(lib(QUANT, op("q::add.out"), name="pkg_quant"), plugin),
    )
    assert [f.subject.operator for f in found] == ["q::add.out"]


def test_sl401_same_kernel_twice_in_one_library() -> None:
    found = run(
        rules.operator_registered_twice,
        base_manifest(),
        model(
            lib(
                QUANT,
                op("q::add.out"),
                op("q::add.out"),
                op("q::add.out", "v1/6"),
                name="pkg_quant",
            )
        ),
    )
    assert len(found) == 1 and "registers q::add.out 2 times" in found[0].message


# ---------------------------------------------------------------- SL402


def test_sl402_fires_on_a_namespace_given_to_another_library() -> None:
    m = base_manifest(pkg_quant=Ownership(operator_namespaces=("q",)))
    found = run(
        rules.operator_namespace_of_another_library,
        m,
        model(lib(PLUGIN, op("q::add.out"), op("q::mul.out"), op("p::x.out"), name="plugin")),
    )
    assert len(found) == 1
    assert "2 operators of namespace q" in found[0].message and "pkg_quant" in found[0].message


def test_sl402_quiet_for_the_owner_and_for_unclaimed_namespaces() -> None:
    m = base_manifest(pkg_quant=Ownership(operator_namespaces=("q",)))
    registrations = model(
        lib(QUANT, op("q::add.out"), name="pkg_quant"), lib(PLUGIN, op("p::x.out"), name="plugin")
    )
    assert run(rules.operator_namespace_of_another_library, m, registrations) == []


# ---------------------------------------------------------------- SL403


@pytest.mark.parametrize(
    "owns, ops, expected",
    [
        (
            Ownership(operator_count=3),
            (op("q::a"), op("q::b")),
            "2 operators, the manifest declares 3",
        ),
        (
            Ownership(operators=("q::a", "q::c")),
            (op("q::a"), op("q::b")),
            "missing declared q::c; undeclared q::b",
        ),
        (
            Ownership(operator_namespaces=("q",)),
            (op("q::a"), op("x::b")),
            "undeclared namespace x",
        ),
        (
            Ownership(operator_namespaces=("q", "r")),
            (op("q::a"),),
            "no operator of declared namespace r",
        ),
    ],
)
def test_sl403_fires(owns: Ownership, ops: tuple[RegisteredOperator, ...], expected: str) -> None:
    found = run(
        rules.registered_operators_differ_from_manifest,
        base_manifest(pkg_quant=owns),
        model(lib(QUANT, *ops, name="pkg_quant")),
    )
    assert len(found) == 1 and expected in found[0].message


def test_sl403_counts_operators_not_kernels_and_fires_when_nothing_registers() -> None:
    m = base_manifest(pkg_quant=Ownership(operator_count=1, operator_namespaces=("q",)))
    two_keys = lib(QUANT, op("q::cast", "v1/6"), op("q::cast", "v1/3"), name="pkg_quant")
    assert run(rules.registered_operators_differ_from_manifest, m, model(two_keys)) == []
    silent = lib(QUANT, name="pkg_quant", status=Status.NONE)
    found = run(rules.registered_operators_differ_from_manifest, m, model(silent))
    assert len(found) == 1 and "0 operators, the manifest declares 1" in found[0].message


def test_sl403_quiet_when_not_determined_or_not_declared() -> None:
    m = base_manifest(pkg_quant=Ownership(operator_count=5))
    unknown = lib(QUANT, name="pkg_quant", status=Status.NOT_DETERMINED, reason="code")
    assert run(rules.registered_operators_differ_from_manifest, m, model(unknown)) == []
    undeclared = lib(PLUGIN, op("q::a"), name="plugin")
    assert run(rules.registered_operators_differ_from_manifest, m, model(undeclared)) == []


# ---------------------------------------------------------------- SL404


def test_sl404_fires_on_a_copy_the_manifest_gives_to_another_library() -> None:
    copy = lib(PLUGIN, op("p::x"), name="plugin", owner=PLUGIN, owns=("ops",), closure=())
    found = run(rules.unexpected_registry_copy, base_manifest(), model(copy))
    assert len(found) == 1
    assert found[0].message == (
        "libplugin.so strongly defines pkg::runtime::register_kernels: it carries its own "
        "copy of the ops registry; the manifest expects it only in pkg"
    )


def test_sl404_without_declared_owner_reports_every_owner_of_several() -> None:
    m = replace(
        base_manifest(),
        libraries=tuple(replace(x, owns=Ownership()) for x in base_manifest().libraries),
    )
    copy = lib(PLUGIN, name="plugin", owner=PLUGIN, owns=("ops",), closure=())
    found = run(rules.unexpected_registry_copy, m, model(copy))
    assert sorted(f.location.render() for f in found) == [
        f"pkg.whl!/{RUNTIME}",
        f"pkg.whl!/{PLUGIN}",
    ]
    assert run(rules.unexpected_registry_copy, m, model()) == []


def test_sl404_quiet_for_the_expected_owner() -> None:
    assert run(rules.unexpected_registry_copy, base_manifest(), model(lib(QUANT, op("q::a")))) == []


# ---------------------------------------------------------------- SL405 / SL406


def test_sl405_reports_not_determined_with_the_reason() -> None:
    unknown = lib(
        PLUGIN, name="plugin", status=Status.NOT_DETERMINED, reason="it registers through code"
    )
    found = run(rules.registrations_not_determined, base_manifest(), model(unknown))
    assert len(found) == 1 and found[0].message.endswith("it registers through code")
    assert (
        run(rules.registrations_not_determined, base_manifest(), model(lib(QUANT, op("q::a"))))
        == []
    )


def test_sl406_reports_an_unresolved_registry() -> None:
    orphan = lib(QUANT, op("q::a"), name="pkg_quant", owner=None, closure=())
    found = run(rules.registry_owner_not_found, base_manifest(), model(orphan))
    assert len(found) == 1 and "imports the ops registry" in found[0].message
    assert run(rules.registry_owner_not_found, base_manifest(), model(lib(QUANT, op("q::a")))) == []
