"""Registry ownership and resolution through the NEEDED graph, on hand-built link facts.

Which members a binary loads is the inventory's link graph (tested with the artifact
rules); here each closure is given and the owner the loader reaches is checked.
"""

from __future__ import annotations

import pytest
from shiplint.manifest.model import Registry
from shiplint.operators.registries import LinkFacts, Resolver, owns, references

MANGLED = "_ZN3pkg7runtime16register_kernelsENS0_4SpanIKNS0_6KernelEEE"
BASE = "pkg::runtime::register_kernels"
REGISTRY = Registry("ops", (BASE,))


def facts(member: str, *closure: str, defines: bool = False, imports: bool = False) -> LinkFacts:
    spellings = frozenset({MANGLED, BASE})
    return LinkFacts(
        member=member,
        closure=closure,
        strong=spellings if defines else frozenset(),
        imported=spellings if imports else frozenset(),
    )


def test_owner_is_the_first_definition_in_closure_order() -> None:
    resolver = Resolver(
        [
            facts("lib/libk.so", "lib/liba.so", "lib/libc.so", "lib/libb.so", imports=True),
            facts("lib/liba.so", "lib/libb.so"),
            facts("lib/libb.so", defines=True),  # depth 2
            facts("lib/libc.so", defines=True),  # depth 1: reached first
        ]
    )
    assert resolver.owner("lib/libk.so", REGISTRY) == "lib/libc.so"
    # A library defining the registry itself uses its own copy.
    assert resolver.owner("lib/libb.so", REGISTRY) == "lib/libb.so"


def test_outside_the_artifact_is_unresolved_not_guessed() -> None:
    # libtorch.so resolved outside the artifact: no dependency inside it.
    resolver = Resolver([facts("lib/libk.so", imports=True)])
    assert resolver.uses("lib/libk.so", [REGISTRY])[0].owner is None


@pytest.mark.parametrize("spelling", [BASE, MANGLED])
def test_registry_named_by_base_or_mangled_name(spelling: str) -> None:
    registry = Registry("ops", (spelling,))
    assert owns(facts("l.so", defines=True), registry)
    assert references(facts("l.so", imports=True), registry)
    assert not owns(facts("l.so", imports=True), registry)
    assert not references(facts("l.so"), registry)


def test_unreadable_relocations_make_a_registering_library_not_determined() -> None:
    from shiplint.diagnostics import Location
    from shiplint.operators.collect import BinaryInput, collect
    from shiplint.operators.model import Status
    from shiplint.platforms import Platform

    from tests.builders import manifest

    reason = "relocations cannot be read: LiefError: bad"
    model = collect(
        "a.whl",
        Location("a.whl"),
        Platform("linux", "x86_64"),
        manifest(registries=(REGISTRY,)),
        [
            BinaryInput(facts("pkg/lib/libk.so", imports=True), "k", None, reason),
            BinaryInput(facts("pkg/lib/libplain.so"), None, None, reason),
        ],
    )
    states = {lib.file_name: (lib.status, lib.reason) for lib in model.libraries}
    assert states == {
        "libk.so": (Status.NOT_DETERMINED, reason),
        # References no registry: it cannot register, whatever its relocations hold.
        "libplain.so": (Status.NONE, None),
    }
