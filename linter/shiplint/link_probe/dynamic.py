"""What the probe needs of a binary on disk (NEEDED, SONAME, platform), read through
the one binary reader (`shiplint.artifacts.lief_reader`), never by parsing tool output."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from shiplint.platforms import Platform


@dataclass(frozen=True)
class Dynamic:
    soname: str | None
    needed: tuple[str, ...]
    # None when the format names no single OS and architecture (an archive, a universal binary).
    platform: Platform | None


def read_dynamic(path: Path) -> Dynamic | str:
    """The dynamic facts of the binary at `path`, or why they cannot be read."""
    from shiplint.artifacts.lief_reader import read_binary
    from shiplint.artifacts.records import BinaryError

    try:
        data = path.read_bytes()
    except OSError as exc:
        return f"cannot read {path.name}: {exc.strerror or exc}"
    record = read_binary(data, path.name)
    if isinstance(record, BinaryError):
        return f"{record.name}: {record.reason}"
    os_name = record.format.os
    platform = Platform(os_name, record.arch) if os_name and record.arch else None
    return Dynamic(record.soname, record.needed, platform)
