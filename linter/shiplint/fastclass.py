"""`dataclass`: the standard decorator, with a frozen class's methods made with less
compilation.

The standard decorator writes the source of each method it adds and compiles it: six
functions for a frozen class. A check imports over a hundred frozen classes, and those
compilations were a fifth of the instructions a re-run of the ExecuTorch wheel executed
(a re-run replays its evaluations from the user cache, so little else is left).

Here, for a frozen class:
- `__eq__`, `__hash__` and `__repr__` are closures over `operator.attrgetter` of the
  field names, and `__setattr__`/`__delattr__` closures over the class and its field
  names: the same for every class, nothing compiled;
- `__init__` is compiled alone, one small function, when every field is a parameter in
  order with a default, a default factory or neither (the standard decorator still
  collects and checks the fields, adding no method). Anything else its `__init__`
  handles (InitVar, `init=False` or keyword-only fields, slots, a frozen base the
  standard decorator made, which would refuse a subclass it does not see as frozen)
  gets the standard `__init__`, `__setattr__` and `__delattr__` (and such a class
  cannot subclass one made here: the standard decorator refuses it at import).
Measured on that re-run: 2,041 M instructions to 1,730 M.

They behave as the standard ones do (`tests/test_fastclass.py` compares them on a
table of classes): the same parameters and defaults, the same tuples compared and
hashed, the same repr, `NotImplemented` for another class, fields with
`compare=False`, `hash=...` or `repr=False` left out as there, an assignment or a
deletion refused alike (a plain subclass may still set what is not a field), a method
the class defines itself kept, `__post_init__` called. What differs, and nothing here
reads: the generated `__init__` has no annotations, and `__dataclass_params__` says
what the standard decorator was asked to make (frozen only where it made the frozen
methods). Any other use (not frozen, `order`, `eq=False`, `repr=False`,
`unsafe_hash`) is the standard decorator's alone.

Type checkers see `dataclasses.dataclass` itself.
"""

from __future__ import annotations

import dataclasses
import inspect
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
    if _plain_fields(cls, options):
        # Fields and their defaults checked and collected by the standard decorator,
        # which then adds no method; __init__ is compiled here, alone.
        made: type = dataclasses.dataclass(
            cls, init=False, repr=False, eq=False, frozen=False, **options
        )
        fields = dataclasses.fields(made)
        if "__init__" not in own:
            _method(made, "__init__", _init(fields, hasattr(made, "__post_init__")))
        names = frozenset(f.name for f in fields)
        _method(made, "__setattr__", _refusing_assignment(made, names))
        _method(made, "__delattr__", _refusing_deletion(made, names))
    else:
        made = dataclasses.dataclass(cls, frozen=True, eq=False, repr=False, **options)
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


def _plain_fields(cls: type, options: dict[str, Any]) -> bool:
    """Whether __init__ is made here: every field a parameter in order, with a default
    or a default factory or neither, and nothing else the standard `__init__` handles
    (InitVar, `init=False` or keyword-only fields, slots, a frozen base made by the
    standard decorator, which refuses a subclass it does not see as frozen)."""
    if set(options) - {"match_args"}:
        return False
    annotations = inspect.get_annotations(cls)
    if any("InitVar" in str(annotation) for annotation in annotations.values()):
        return False
    if any(name == "self" or name.startswith("__fastclass_") for name in annotations):
        return False  # a name the generated __init__ has for itself
    for base in cls.__mro__[1:]:
        params = base.__dict__.get("__dataclass_params__")
        if params is not None and params.frozen:
            return False
    for name in annotations:
        default = cls.__dict__.get(name)
        # kw_only is MISSING when the field does not say (the class's own setting holds).
        if isinstance(default, dataclasses.Field) and (not default.init or default.kw_only is True):
            return False
    return True


class _Factory:
    """The default of a parameter whose field has a default factory, as the standard
    `__init__` has its own (shown as `<factory>` in a signature)."""

    def __repr__(self) -> str:
        return "<factory>"


_FACTORY = _Factory()


def _init(fields: tuple[dataclasses.Field[Any], ...], post_init: bool) -> Callable[..., None]:
    """The standard frozen `__init__`: each field set through object.__setattr__ from its
    parameter, its default factory called when the parameter was not given."""
    # The function's own names start with `__fastclass_`: no field's can (_plain_fields).
    scope: dict[str, Any] = {"__fastclass_set": object.__setattr__, "__fastclass_factory": _FACTORY}
    parameters = ["self"]
    body = []
    defaulted = None
    for field in fields:
        name = field.name
        if field.default is not dataclasses.MISSING:
            scope[f"__fastclass_default_{name}"] = field.default
            parameters.append(f"{name}=__fastclass_default_{name}")
            defaulted = name
        elif field.default_factory is not dataclasses.MISSING:
            scope[f"__fastclass_factory_{name}"] = field.default_factory
            parameters.append(f"{name}=__fastclass_factory")
            defaulted = name
        elif defaulted is not None:
            raise TypeError(f"non-default argument {name!r} follows default argument")
        else:
            parameters.append(name)
        value = (
            f"__fastclass_factory_{name}() if {name} is __fastclass_factory else {name}"
            if field.default_factory is not dataclasses.MISSING
            else name
        )
        body.append(f"    __fastclass_set(self, {name!r}, {value})")
    if post_init:
        body.append("    self.__post_init__()")
    source = f"def __init__({', '.join(parameters)}):\n" + ("\n".join(body) or "    pass")
    made: dict[str, Any] = {}
    exec(source, scope, made)  # the fields' names only: identifiers the class declared
    init: Callable[..., None] = made["__init__"]
    return init


def _refusing_assignment(owner: type, names: frozenset[str]) -> Callable[[Any, str, Any], None]:
    def __setattr__(self: object, name: str, value: Any) -> None:
        if type(self) is owner or name in names:
            raise dataclasses.FrozenInstanceError(f"cannot assign to field {name!r}")
        parent = super(owner, self)  # as the standard method: the next class's own rule
        parent.__setattr__(name, value)

    return __setattr__


def _refusing_deletion(owner: type, names: frozenset[str]) -> Callable[[Any, str], None]:
    def __delattr__(self: object, name: str) -> None:
        if type(self) is owner or name in names:
            raise dataclasses.FrozenInstanceError(f"cannot delete field {name!r}")
        parent = super(owner, self)
        parent.__delattr__(name)

    return __delattr__


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
