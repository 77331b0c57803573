"""The NEEDED of a consumer the probe built, read through the one binary reader.

Only for the probe's own freshly built consumers (the artifact's libraries are
read once, into the inventory): parsed in process, never by parsing tool output.
"""

from __future__ import annotations

from pathlib import Path


def read_needed(path: Path) -> tuple[str, ...] | str:
    """The NEEDED entries of the binary at `path`, or why they cannot be read."""
    from shiplint.artifacts.records import BinaryError
    from shiplint.artifacts.worker import IN_PROCESS

    try:
        data = path.read_bytes()
    except OSError as exc:
        return f"cannot read {path.name}: {exc.strerror or exc}"
    record = IN_PROCESS.binary(data, path.name)
    if isinstance(record, BinaryError):
        return f"{record.name}: {record.reason}"
    return record.needed
