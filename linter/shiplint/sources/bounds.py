"""How much CMake text the walk reads: file size, nesting depth, syntax nodes, value size.

A checked project is input like any other: a generated CMakeLists.txt of 60 MB, ten
thousand nested if()s, a one-line set() of a million arguments or a variable doubled
forty times must end in a finding that names the bound, not in a crash, a hang or
gigabytes of memory. Each bound is far above what real projects write (ExecuTorch's
largest CMake file is under 100 KB and nests about 6 blocks deep).
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from shiplint.plural import counted

# Of one CMake file: its size and its syntax nodes (tree-sitter's, arguments included).
MAX_FILE_BYTES = 8 * 1024 * 1024
MAX_NODES = 1_000_000
# Blocks (if, foreach, while, function bodies, included files, subdirectories, wrapper
# calls) nested inside each other: the walk recurses once per level.
MAX_NESTING = 100
# Characters a variable's value, or one command's expanded arguments, may hold.
MAX_VALUE_CHARS = 1024 * 1024
# Statements the whole walk runs: loops multiply the work of what they hold, so nested
# foreach() over a few items each is exponential in its depth long before it is deep.
MAX_STEPS = 500_000


class Refused(Exception):
    """A file the walk does not read, with the reason (naming the bound)."""


def read_source(path: Path) -> bytes:
    """The bytes of a regular file of at most MAX_FILE_BYTES.

    Opened without blocking and checked after opening, so a FIFO or a device named
    CMakeLists.txt (or a link to one) is refused rather than read forever.
    """
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    try:
        status = os.fstat(fd)
        if not stat.S_ISREG(status.st_mode):
            raise Refused("not a regular file")
        # Read in pieces of about the file's size (one that grows meanwhile, or claims no
        # size as /proc's files do, is read on up to the bound): a single read of the
        # bound itself would allocate 8 MiB per file.
        piece = max(status.st_size + 1, 64 * 1024)
        chunks: list[bytes] = []
        left = MAX_FILE_BYTES + 1
        while left > 0:
            chunk = os.read(fd, min(left, piece))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
    finally:
        os.close(fd)
    data = b"".join(chunks)
    if len(data) > MAX_FILE_BYTES:
        raise Refused(f"larger than {MAX_FILE_BYTES:,} bytes (bound: file size); not read")
    return data


def outside_message(shown: str) -> str:
    return f"{shown} lies outside the checked tree, its links followed (bound: the tree); not read"


def nodes_bound(count: int) -> str:
    return (
        f"holds {counted(count, 'syntax node')}, more than {MAX_NODES:,} (bound: node count); "
        "not read"
    )


def nesting_bound(what: str) -> str:
    return (
        f"{what} nests deeper than {MAX_NESTING} levels (bound: nesting depth); "
        "what lies deeper is not read"
    )


def steps_bound() -> str:
    return (
        f"the walk ran {MAX_STEPS:,} statements here (bound: statements run; loops repeat "
        "what they hold); what follows is not read"
    )


def value_bound(variable: str, chars: int) -> str:
    return (
        f"{variable} would hold {chars:,} characters, more than {MAX_VALUE_CHARS:,} "
        "(bound: variable size); its value is treated as unknown"
    )


def expansion_bound(variable: str) -> str:
    return (
        f"expanding ${{{variable}}} would take the command's arguments past "
        f"{MAX_VALUE_CHARS:,} characters (bound: variable size); it is treated as unknown"
    )
