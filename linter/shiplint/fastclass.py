"""`dataclass`: the standard decorator, with a frozen class's `__eq__`, `__hash__` and
`__repr__` made without compiling code.

The standard decorator writes the source of each method it adds and compiles it:
six functions for a frozen class. A check imports over a hundred frozen classes, and
those compilations were a fifth of the instructions a re-run of the ExecuTorch wheel
executed (a re-run replays its evaluations from the user cache, so little else is
left). Equality, hashing and repr are the same three functions for every class but
for the field names: here they are closures over `operator.attrgetter` of those
names, which compile nothing, and `dataclasses` still makes `__init__` and the
frozen `__setattr__`/`__delattr__`. Measured on that re-run: 2,041 M instructions
to 1,892 M.

They behave as the standard ones do (`tests/test_fastclass.py` compares them on a
table of classes): the same tuples compared and hashed, the same repr, `NotImplemented`
for another class, fields with `compare=False`, `hash=...` or `repr=False` left out
as there, a method the class defines itself kept. Any other use (not frozen, `order`,
`eq=False`, `repr=False`, `unsafe_hash`) is the standard decorator's alone.

Type checkers see `dataclasses.dataclass` itself.
"""

from __future__ import annotations

import dataclasses
import operator
import reprlib
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from dataclasses import dataclass as dataclass
else:

    def dataclass(
        cls: type | None = None,
        /,
        *,
        frozen: bool = False,
        eq: bool = True,
        repr: bool = True,
        order: bool = False,
        unsafe_hash: bool = False,
        **options: Any,
    ) -> Any:
        def wrap(cls: type) -> type:
            if not frozen or not eq or not repr or order or unsafe_hash:
                return dataclasses.dataclass(
                    cls,
                    frozen=frozen,
                    eq=eq,
                    repr=repr,
                    order=order,
                    unsafe_hash=unsafe_hash,
                    **options,
                )
            return _frozen(cls, options)

        return wrap if cls is None else wrap(cls)


def _frozen(cls: type, options: dict[str, Any]) -> type:
    own = dict(cls.__dict__)  # before the decorator adds to it
    made: type = dataclasses.dataclass(cls, frozen=True, eq=False, repr=False, **options)
    fields = dataclasses.fields(made)
    compared = _values([f.name for f in fields if f.compare])
    hashed = _values([f.name for f in fields if (f.compare if f.hash is None else f.hash)])
    shown = tuple(f.name for f in fields if f.repr)
    if "__eq__" not in own:
        _method(made, "__eq__", _equality(compared))
    # A class that defines __eq__ alone has __hash__ = None put in its body by Python:
    # that is no hash of its own, and the standard decorator replaces it too.
    explicit_hash = "__hash__" in own and not (own["__hash__"] is None and "__eq__" in own)
    if not explicit_hash:
        _method(made, "__hash__", lambda self: hash(hashed(self)))
    if "__repr__" not in own:
        _method(made, "__repr__", _repr(shown))
    return made


def _values(names: list[str]) -> Callable[[Any], tuple[Any, ...]]:
    """The tuple of the named attributes: what the standard methods compare and hash."""
    if not names:
        return lambda self: ()
    if len(names) == 1:
        one = operator.attrgetter(names[0])
        return lambda self: (one(self),)
    return operator.attrgetter(*names)  # a tuple for 2 names or more


def _equality(values: Callable[[Any], tuple[Any, ...]]) -> Callable[[Any, Any], Any]:
    def __eq__(self: Any, other: Any) -> Any:
        if other.__class__ is self.__class__:
            return values(self) == values(other)
        return NotImplemented

    return __eq__


def _repr(names: tuple[str, ...]) -> Callable[[Any], str]:
    @reprlib.recursive_repr()
    def __repr__(self: Any) -> str:
        shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in names)
        return f"{self.__class__.__qualname__}({shown})"

    return __repr__


def _method(cls: type, name: str, function: Callable[..., Any]) -> None:
    function.__name__ = name
    function.__qualname__ = f"{cls.__qualname__}.{name}"
    setattr(cls, name, function)
