"""Static archives (`!<arch>`): lief does not parse them, so they are walked here.

What the rules need of one: that it is a static archive (shipped where a shared
library belongs), how many objects it holds, and the architecture of its first
object, read by the caller's binary reader.
"""

from __future__ import annotations

from collections.abc import Callable

from shiplint.artifacts.headers import ELF_MAGIC, MACHO_MAGICS
from shiplint.artifacts.records import BinaryError, BinaryFormat, BinaryRecord, FileType

ObjectReader = Callable[[bytes, str], BinaryRecord | BinaryError]


def read_archive(data: bytes, name: str, read_object: ObjectReader) -> BinaryRecord | BinaryError:
    """A `!<arch>` archive: its member count and the format/arch of its first object."""
    if data.startswith(b"!<thin>\n"):
        return _archive_record(name, BinaryFormat.ARCHIVE, (), 0)
    offset = 8
    members = 0
    first: BinaryRecord | BinaryError | None = None
    while offset + 60 <= len(data):
        header = data[offset : offset + 60]
        if header[58:60] != b"`\n":
            return BinaryError(name, f"corrupt static archive: bad member header at {offset}")
        try:
            size = int(header[48:58].decode("ascii").strip())
        except ValueError:
            return BinaryError(name, f"corrupt static archive: bad member size at {offset}")
        if offset + 60 + size > len(data):
            return BinaryError(
                name, f"truncated static archive: member at {offset} runs past the end"
            )
        member_name = header[:16].decode("ascii", "replace").strip()
        body = data[offset + 60 : offset + 60 + size]
        # "/" and "//" (GNU) and "__.SYMDEF" (BSD) are the symbol and name tables.
        if member_name not in ("/", "//", "/SYM64/") and not member_name.startswith("__.SYMDEF"):
            members += 1
            if first is None and body[:4] in (ELF_MAGIC, *MACHO_MAGICS):
                first = read_object(body, f"{name}({member_name.rstrip('/')})")
        offset += 60 + size + (size & 1)
    if offset < len(data) and data[offset:].strip(b"\n"):
        return BinaryError(
            name, f"corrupt static archive: {len(data) - offset} bytes after the last member"
        )
    arches = first.arches if isinstance(first, BinaryRecord) else ()
    return _archive_record(name, BinaryFormat.ARCHIVE, arches, members)


def _archive_record(
    name: str, fmt: BinaryFormat, arches: tuple[str, ...], members: int
) -> BinaryRecord:
    return BinaryRecord(
        name=name,
        format=fmt,
        arches=arches,
        file_type=FileType.STATIC_ARCHIVE,
        soname=None,
        needed=(),
        runpath=(),
        rpath=(),
        defined=(),
        undefined=(),
        archive_members=members,
    )
