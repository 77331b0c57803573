"""Reading binaries: the records and relocated pointers of an artifact's members.

One layered stack, each layer knowing only the one below: kept reads (`kept`, the
user cache), then the struct ELF and Mach-O readers (`by_struct`), then lief in a
worker process (`worker`). Above it, an area holds a `Reader` and asks
`records(tree, members)` or `pointers(tree, member)`; a run gets one from `opened`,
which decides when the worker starts. Nothing outside this package knows which
reader answered.

The face is imported on first use, not with the package: the worker process imports
this package too, and needs none of the upper layers (the archive, the user cache),
whose import would delay its start, and so lief's (some 80 ms of CPU here).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from shiplint.artifacts.reading.by_struct import Read as Read
    from shiplint.artifacts.reading.session import opened as opened
    from shiplint.artifacts.reading.stack import IN_PROCESS as IN_PROCESS
    from shiplint.artifacts.reading.stack import Reader as Reader
    from shiplint.artifacts.reading.stack import read_binary as read_binary

# Each name of the face, and the module that defines it.
_FACE = {
    "Read": "by_struct",
    "opened": "session",
    "IN_PROCESS": "stack",
    "Reader": "stack",
    "read_binary": "stack",
}
__all__ = sorted(_FACE)


def __getattr__(name: str) -> object:
    if name not in _FACE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{_FACE[name]}"), name)
