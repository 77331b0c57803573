"""What decides the answers of the code that reads CMake: its own bytes and the grammar.

The user cache keeps what this code made from a project (a file's parse, a walk's
model) under keys that hold the code's identity, so a change to the code, or another
tree-sitter-cmake installed, is a miss, never a stale answer.
"""

from __future__ import annotations

import functools
import importlib.util
from pathlib import Path


def source_bytes(paths: tuple[Path, ...]) -> bytes:
    """The files' bytes, each after its name: an edit to any of them is another identity."""
    return b"\0".join(path.name.encode() + b"\0" + path.read_bytes() for path in paths)


@functools.cache
def grammar() -> bytes:
    """The installed tree-sitter-cmake: its compiled grammar's name, size and time.

    Its size and time stand for its bytes (a reinstall changes them) so the grammar,
    a shared library, is not read and hashed on every run."""
    spec = importlib.util.find_spec("tree_sitter_cmake")
    if spec is None or spec.origin is None:
        return b""
    parts = []
    for binary in sorted(Path(spec.origin).parent.glob("_binding*")):
        stat = binary.stat()
        parts.append(f"{binary.name}:{stat.st_size}:{stat.st_mtime_ns}".encode())
    return b"\0".join(parts)
