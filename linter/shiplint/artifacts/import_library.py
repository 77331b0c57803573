"""Windows import libraries (`.lib` archives of short import objects): which DLLs they name.

An import library lets a consumer link against a DLL: each of its short import
objects (signature 0x0000 0xFFFF) names one exported symbol and the DLL that
exports it. A static library (`.lib` of COFF objects) names none.
"""

from __future__ import annotations

from shiplint.artifacts.archive import MemberError
from shiplint.artifacts.tree import Tree
from shiplint.fastclass import dataclass

# An import library holds a few bytes per exported symbol; past this it is a static
# library (or not worth inflating to find out).
_LIMIT = 64 * 1024 * 1024
_SHORT_IMPORT = b"\x00\x00\xff\xff"
# Sig1, Sig2, Version, Machine, TimeDateStamp, SizeOfData, OrdinalHint, Type.
_IMPORT_HEADER = 20


@dataclass(frozen=True)
class ImportLibrary:
    member: str
    # The DLL file names its import objects name, in first-seen order.
    dlls: tuple[str, ...]


def import_libraries(tree: Tree, members: tuple[str, ...]) -> tuple[ImportLibrary, ...]:
    """Every `.lib` member that is an import library, with the DLLs it names."""
    out: list[ImportLibrary] = []
    for member in members:
        if not member.lower().endswith(".lib"):
            continue
        try:
            data = tree.read(member, _LIMIT)
        except MemberError:
            continue
        dlls = dlls_named(data)
        if dlls:
            out.append(ImportLibrary(member, dlls))
    return tuple(out)


def dlls_named(data: bytes) -> tuple[str, ...]:
    """The DLL names of an archive's short import objects; () when it holds none."""
    if not data.startswith(b"!<arch>\n"):
        return ()
    found: dict[str, None] = {}
    offset = 8
    while offset + 60 <= len(data):
        header = data[offset : offset + 60]
        try:
            size = int(header[48:58].decode("ascii").strip())
        except ValueError:
            break
        body = data[offset + 60 : offset + 60 + size]
        if body.startswith(_SHORT_IMPORT) and len(body) > _IMPORT_HEADER:
            names = body[_IMPORT_HEADER:].split(b"\x00")
            if len(names) >= 2 and names[1]:
                found.setdefault(names[1].decode("utf-8", "replace"), None)
        offset += 60 + size + (size & 1)
    return tuple(found)
