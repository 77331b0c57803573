"""shiplint.fastclass.dataclass against the standard decorator: each class body below is
decorated by both, and the two classes must compare, hash, print, copy, pickle and
refuse assignment alike."""

from __future__ import annotations

import copy
import dataclasses
import inspect
import pickle
from collections.abc import Callable
from typing import Any

import pytest
from shiplint import fastclass

Decorator = Callable[..., Any]


def _plain(make: Decorator) -> type:
    @make(frozen=True)
    class Plain:
        name: str
        size: int = 0
        tags: tuple[str, ...] = ()

    return Plain


def _one_field(make: Decorator) -> type:
    @make(frozen=True)
    class One:
        name: str

    return One


def _no_field(make: Decorator) -> type:
    @make(frozen=True)
    class Empty:
        pass

    return Empty


def _field_options(make: Decorator) -> type:
    @make(frozen=True)
    class Options:
        name: str
        seen: int = dataclasses.field(default=0, compare=False)
        secret: str = dataclasses.field(default="", repr=False)
        unhashed: int = dataclasses.field(default=0, hash=False)
        hashed_only: int = dataclasses.field(default=0, compare=False, hash=True)
        items: list[int] = dataclasses.field(default_factory=list, hash=False)

    return Options


def _own_eq(make: Decorator) -> type:
    @make(frozen=True)
    class OwnEq:
        name: str
        size: int = 0

        def __eq__(self, other: object) -> bool:
            return isinstance(other, OwnEq) and self.name == other.name

    return OwnEq


def _own_hash(make: Decorator) -> type:
    @make(frozen=True)
    class OwnHash:
        name: str

        def __hash__(self) -> int:
            return 7

    return OwnHash


def _own_repr(make: Decorator) -> type:
    @make(frozen=True)
    class OwnRepr:
        name: str

        def __repr__(self) -> str:
            return "mine"

    return OwnRepr


def _subclass(make: Decorator) -> type:
    @make(frozen=True)
    class Base:
        name: str

    @make(frozen=True)
    class Derived(Base):
        size: int = 0

    return Derived


def _slots(make: Decorator) -> type:
    @make(frozen=True, slots=True)
    class Slotted:
        name: str
        size: int = 0

    return Slotted


def _keyword_only(make: Decorator) -> type:
    @make(frozen=True, kw_only=True)
    class Keywords:
        name: str
        size: int = 0

    return Keywords


def _post_init(make: Decorator) -> type:
    @make(frozen=True)
    class Checked:
        name: str

        def __post_init__(self) -> None:
            if not self.name:
                raise ValueError("empty name")

    return Checked


# Left to the standard decorator alone: these must be exactly its classes.
def _not_frozen(make: Decorator) -> type:
    @make
    class Mutable:
        name: str
        size: int = 0

    return Mutable


def _ordered(make: Decorator) -> type:
    @make(frozen=True, order=True)
    class Ordered:
        name: str
        size: int = 0

    return Ordered


SHAPES: list[tuple[Callable[[Decorator], type], list[tuple[Any, ...]]]] = [
    (_plain, [("a",), ("a", 1), ("a", 1, ("x",)), ("b", 1), ("a", 0, ())]),
    (_one_field, [("a",), ("b",), ("a",)]),
    (_no_field, [(), ()]),
    (_field_options, [("a",), ("a", 5), ("a", 0, "s"), ("a", 0, "", 3), ("a", 0, "", 0, 9)]),
    (_own_eq, [("a", 1), ("a", 2), ("b", 1)]),
    (_own_hash, [("a",), ("b",)]),
    (_own_repr, [("a",), ("b",)]),
    (_subclass, [("a",), ("a", 1), ("b", 1)]),
    (_slots, [("a",), ("a", 1), ("b", 1)]),
    (_post_init, [("a",), ("b",)]),
    (_not_frozen, [("a",), ("a", 1)]),
    (_ordered, [("a",), ("a", 1), ("b", 0)]),
]


def _both(shape: Callable[[Decorator], type]) -> tuple[type, type]:
    return shape(dataclasses.dataclass), shape(fastclass.dataclass)


def _hashable(value: object) -> int | None:
    try:
        return hash(value)
    except TypeError:
        return None


@pytest.mark.parametrize(("shape", "arguments"), SHAPES, ids=[s.__name__[1:] for s, _ in SHAPES])
def test_instances_compare_hash_and_print_as_the_standard_ones(
    shape: Callable[[Decorator], type], arguments: list[tuple[Any, ...]]
) -> None:
    standard, fast = _both(shape)
    ours = [fast(*a) for a in arguments]
    theirs = [standard(*a) for a in arguments]
    for mine, reference in zip(ours, theirs, strict=True):
        assert repr(mine) == repr(reference)
        assert _hashable(mine) == _hashable(reference)
        assert dataclasses.astuple(mine) == dataclasses.astuple(reference)
    for i, mine in enumerate(ours):
        for j, other in enumerate(ours):
            assert (mine == other) == (theirs[i] == theirs[j])
            assert (mine != other) == (theirs[i] != theirs[j])
    assert ours[0].__eq__(object()) is theirs[0].__eq__(object())
    assert (fast.__hash__ is None) == (standard.__hash__ is None)


def test_a_class_made_by_the_other_decorator_is_never_equal() -> None:
    standard, fast = _both(_plain)
    assert fast("a") != standard("a")
    assert standard("a") != fast("a")


def test_a_subclass_instance_is_not_equal_to_its_base_instance() -> None:
    @fastclass.dataclass(frozen=True)
    class Base:
        name: str

    @fastclass.dataclass(frozen=True)
    class Derived(Base):
        pass

    assert Base("a") != Derived("a")
    assert Derived("a") == Derived("a")


def test_assignment_and_deletion_are_refused() -> None:
    instance = _plain(fastclass.dataclass)("a")
    with pytest.raises(dataclasses.FrozenInstanceError):
        instance.name = "b"
    with pytest.raises(dataclasses.FrozenInstanceError):
        del instance.name
    # On the class's own instances, a name that is no field too (as the standard one).
    with pytest.raises(dataclasses.FrozenInstanceError, match="'note'"):
        instance.note = "b"
    with pytest.raises(dataclasses.FrozenInstanceError, match="'note'"):
        del instance.note


def test_the_dataclass_functions_work_on_it() -> None:
    cls = _plain(fastclass.dataclass)
    instance = cls("a", 1)
    assert [f.name for f in dataclasses.fields(instance)] == ["name", "size", "tags"]
    assert dataclasses.replace(instance, size=2) == cls("a", 2)
    assert dataclasses.asdict(instance) == {"name": "a", "size": 1, "tags": ()}
    assert cls.__dict__["__match_args__"] == ("name", "size", "tags")
    with pytest.raises(ValueError, match="empty name"):
        _post_init(fastclass.dataclass)("")


def test_copies_and_pickles_are_equal_with_the_same_hash() -> None:
    instance = Pickled("a", (1, 2))
    for twin in (
        copy.copy(instance),
        copy.deepcopy(instance),
        pickle.loads(pickle.dumps(instance)),
    ):
        assert twin == instance
        assert hash(twin) == hash(instance)


def test_a_recursive_value_prints_without_recursing() -> None:
    instance = Holder([])
    instance.items.append(instance)
    assert repr(instance) == "Holder(items=[...])"


def test_the_methods_are_named_as_the_standard_ones() -> None:
    cls = _plain(fastclass.dataclass)
    for name in ("__eq__", "__hash__", "__repr__"):
        method = getattr(cls, name)
        assert method.__name__ == name
        assert method.__qualname__.endswith(f"Plain.{name}")


@fastclass.dataclass(frozen=True)
class Pickled:
    """At module level: pickle finds a class by its name."""

    name: str
    values: tuple[int, ...]


@fastclass.dataclass(frozen=True)
class Holder:
    """A frozen record holding a list it can be put in."""

    items: list[Any]


def test_the_plain_shapes_get_an_init_compiled_alone_the_others_the_standard_one() -> None:
    for shape in (_plain, _one_field, _no_field, _field_options, _subclass, _post_init):
        made = shape(fastclass.dataclass)
        assert (
            vars(made)["__init__"].__globals__.get("__fastclass_factory") is fastclass._FACTORY
        ), shape
    for shape in (_slots, _keyword_only):
        made = shape(fastclass.dataclass)
        assert "__fastclass_factory" not in vars(made)["__init__"].__globals__, shape


@pytest.mark.parametrize("shape", [_plain, _field_options, _subclass, _keyword_only, _post_init])
def test_init_takes_the_same_parameters_with_the_same_defaults(
    shape: Callable[[Decorator], type],
) -> None:
    standard, fast = _both(shape)

    def parameters(cls: type) -> list[tuple[str, object, str]]:
        signature = inspect.signature(vars(cls)["__init__"])
        return [(p.name, p.kind, repr(p.default)) for p in signature.parameters.values()]

    assert parameters(fast) == parameters(standard)


def test_keyword_only_fields_are_given_by_keyword() -> None:
    standard, fast = _both(_keyword_only)
    assert fast(name="a", size=2) == fast(name="a", size=2)
    assert repr(fast(name="a")) == repr(standard(name="a"))
    with pytest.raises(TypeError):
        fast("a")


def test_each_instance_gets_its_own_default_from_the_factory() -> None:
    cls = _field_options(fastclass.dataclass)
    first, second = cls("a"), cls("a")
    assert first.items == [] and first.items is not second.items


def test_a_field_without_default_after_one_with_is_refused_as_the_standard_one_does() -> None:
    for make in (dataclasses.dataclass, fastclass.dataclass):
        with pytest.raises(TypeError, match="non-default argument 'size' follows default"):

            @make(frozen=True)
            class Bad:
                name: str = ""
                size: int


def test_a_class_s_own_init_is_kept() -> None:
    @fastclass.dataclass(frozen=True)
    class Own:
        name: str

        def __init__(self, text: str) -> None:
            object.__setattr__(self, "name", text.strip())

    assert Own("  a ").name == "a"


def test_a_plain_subclass_may_set_what_is_not_a_field_as_with_the_standard_one() -> None:
    for make in (dataclasses.dataclass, fastclass.dataclass):
        base = _plain(make)
        sub = type("Sub", (base,), {})
        instance = sub("a")
        instance.note = "kept"
        assert instance.note == "kept"
        del instance.note
        with pytest.raises(dataclasses.FrozenInstanceError):
            instance.name = "b"
        with pytest.raises(dataclasses.FrozenInstanceError):
            del instance.size


def test_a_subclass_of_a_standard_frozen_dataclass_is_made_as_the_standard_one() -> None:
    base = _plain(dataclasses.dataclass)

    @fastclass.dataclass(frozen=True)
    class Derived(base):  # type: ignore[valid-type,misc]
        extra: int = 0

    assert Derived("a", 1, (), 2).extra == 2
    assert Derived("a") == Derived("a")
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(Derived("a"), "extra", 1)  # noqa: B010  # an assignment the type checker refuses


def _odd_names(make: Decorator) -> type:
    @make(frozen=True)
    class Odd:
        _set: int
        _FACTORY: int = 2
        _default_x: tuple[int, ...] = ()

    return Odd


def test_fields_named_as_the_generated_init_s_own_names_are_set_too() -> None:
    standard, fast = _both(_odd_names)
    assert repr(fast(1)) == repr(standard(1))
    assert repr(fast(1)).endswith("Odd(_set=1, _FACTORY=2, _default_x=())")
