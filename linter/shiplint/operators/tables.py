"""Read the operators a library's kernel tables register, from its relocated pointers.

ExecuTorch's generated registration units hold a static array of `Kernel`
records, `{const char* name_; KernelKey{const char*} kernel_key_; OpFunction op_;}`,
registered from a static initializer. In a shared library every pointer field
is a relocation: the name field points at the NUL-terminated operator name,
the key field at a key string or is null, the function field into code. A
record is recognised by that shape, so an operator name used only in an error
message (no table points at it) is not counted, and a name the linker merged
into the tail of a longer string is still read from the address the table holds.
"""

from __future__ import annotations

import re
from typing import Protocol

from shiplint.operators.model import RegisteredOperator

# `namespace::name` or `namespace::name.overload`, as the runtime registers them.
OPERATOR_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*::[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z0-9_]+)?")


class PointerImage(Protocol):
    """What `shiplint.artifacts.pointers.RelocatedPointers` provides (read without a parser here)."""

    @property
    def word_size(self) -> int: ...

    @property
    def slots(self) -> tuple[tuple[int, int], ...]: ...

    @property
    def strings(self) -> tuple[tuple[int, str], ...]: ...

    @property
    def code(self) -> frozenset[int]: ...


def kernel_records(image: PointerImage) -> tuple[RegisteredOperator, ...]:
    """Every Kernel record in the image, in table order (duplicates kept: they abort too)."""
    slots = dict(image.slots)
    strings = dict(image.strings)
    word = image.word_size
    found: list[RegisteredOperator] = []
    for slot, target in image.slots:
        name = strings.get(target)
        if name is None or not OPERATOR_NAME.fullmatch(name):
            continue
        function = slots.get(slot + 2 * word)
        if function is None or function not in image.code:
            continue
        key: str | None = None
        key_target = slots.get(slot + word)
        if key_target is not None:
            # A relocated key field must point at a key string; anything else
            # means this is not a Kernel record.
            key = strings.get(key_target)
            if key is None:
                continue
        found.append(RegisteredOperator(name, key))
    return tuple(found)
