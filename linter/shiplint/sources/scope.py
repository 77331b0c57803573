"""Where the walk is: the frame every command is interpreted in."""

from __future__ import annotations

from dataclasses import field
from pathlib import Path
from typing import Any

from shiplint.diagnostics import Location
from shiplint.fastclass import dataclass
from shiplint.sources.model import Conditions


@dataclass
class Frame:
    """Where the walk is: directory, file, variable scope, enclosing conditions, wrapper chain."""

    source_dir: Path
    list_file: Path
    vars: dict[str, str]
    parent_vars: dict[str, str] | None
    conditions: Conditions = ()
    in_all: bool = True
    via: tuple[str, ...] = ()
    # The outermost wrapper call: facts made inside a wrapper point at the user's call.
    anchor: Location | None = None
    function_name: str | None = None
    # Inside a wrapper: the names its call site fixes (parameters, ARGN, parsed arguments).
    local: set[str] | None = None
    # The values a variable may hold, each with the conditions of the branch that set it.
    alts: dict[str, list[tuple[str, Conditions]]] = field(default_factory=dict)
    # Conditions that chose a variable's value this walk follows (not enclosing if()s).
    choice: Conditions = ()

    def but(self, **changes: Any) -> Frame:
        """This frame with `changes`, as `dataclasses.replace` would make it.

        Without replace's per-call field introspection and `__init__`: the walk derives
        a frame for every if() branch, include and wrapper call, thousands on a real
        tree. The fields' objects are shared, as with replace.
        """
        unknown = changes.keys() - self.__dict__.keys()
        if unknown:
            raise TypeError(f"Frame has no field {sorted(unknown)[0]!r}")
        derived = object.__new__(Frame)
        derived.__dict__.update(self.__dict__)
        derived.__dict__.update(changes)
        return derived
