"""Reading binaries: the records and relocated pointers of an artifact's members.

One layered stack, each layer knowing only the one below: kept reads (`kept`, the
user cache), then the struct ELF and Mach-O readers (`by_struct`), then lief in a
worker process (`worker`). Above it, an area holds a `Reader` and asks
`records(tree, members)` or `pointers(tree, member)`; a run gets one from `opened`,
which decides when the worker starts. Nothing outside this package knows which
reader answered.
"""

from __future__ import annotations

from shiplint.artifacts.reading.by_struct import Read as Read
from shiplint.artifacts.reading.session import opened as opened
from shiplint.artifacts.reading.stack import IN_PROCESS as IN_PROCESS
from shiplint.artifacts.reading.stack import Reader as Reader
from shiplint.artifacts.reading.stack import read_binary as read_binary
