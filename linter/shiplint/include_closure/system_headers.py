"""Which `#include` spellings a consumer's toolchain provides on each OS.

The lists are data (`schemas/system-headers.json`): the C and C++ standard libraries,
the compiler's own headers (intrinsics, OpenMP), POSIX on Linux and macOS, each OS's
own headers and directories, and on macOS the system frameworks (`<Metal/Metal.h>`).
"""

from __future__ import annotations

import json
from functools import cache
from typing import Any

from shiplint.resources import data_dir


@cache
def _table() -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(
        (data_dir("schemas") / "system-headers.json").read_text("utf-8")
    )
    return loaded


@cache
def _for_os(os_name: str) -> tuple[frozenset[str], tuple[str, ...], bool]:
    """(headers, leading directories, case-insensitive) of `os_name`, the frameworks'
    directories (`Metal/`) among the leading directories."""
    table = _table()
    headers: set[str] = set()
    prefixes: list[str] = []
    folded = False
    for key in ("all", os_name):
        entry = table.get(key, {})
        headers.update(entry.get("headers", ()))
        prefixes.extend(entry.get("prefixes", ()))
        prefixes.extend(f"{name}/" for name in entry.get("frameworks", ()))
        folded = folded or bool(entry.get("case_insensitive"))
    if folded:
        headers = {h.lower() for h in headers}
    return frozenset(headers), tuple(prefixes), folded


def is_system_header(spelling: str, os_name: str | None) -> bool:
    """Whether `spelling` is the toolchain's on `os_name` (None: any OS's)."""
    if os_name is None:
        return any(is_system_header(spelling, o) for o in ("linux", "macos", "windows"))
    headers, prefixes, folded = _for_os(os_name)
    name = spelling.lower() if folded else spelling
    return name in headers or name.startswith(prefixes)
