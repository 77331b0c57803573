"""The NEEDED and RUNPATH of a consumer the probe built, read through the one binary reader.

Only for the probe's own freshly built consumers (the artifact's libraries are
read once, into the inventory): parsed in process, never by parsing tool output.
"""

from __future__ import annotations

from pathlib import Path

from shiplint.fastclass import dataclass


@dataclass(frozen=True)
class Dynamic:
    needed: tuple[str, ...]
    # RUNPATH entries, else RPATH ones (what the loader searches for this binary).
    runpath: tuple[str, ...]


def read_dynamic(path: Path) -> Dynamic | str:
    """The NEEDED and RUNPATH entries of the binary at `path`, or why they cannot be read."""
    from shiplint.artifacts.reading import read_binary
    from shiplint.artifacts.records import BinaryError

    try:
        data = path.read_bytes()
    except OSError as exc:
        return f"cannot read {path.name}: {exc.strerror or exc}"
    record = read_binary(data, path.name)
    if isinstance(record, BinaryError):
        return f"{record.name}: {record.reason}"
    return Dynamic(record.needed, record.runpath or record.rpath)
