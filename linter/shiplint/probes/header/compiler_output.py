"""Read the first error of a GCC or Clang run over one header's translation unit.

Both print `file:line:col: error: text` (`fatal error:` when an include is missing)
and, before it, the chain of includes that led there (`In file included from a.h:3,`
then `from b.h:7:`), innermost first. The chain names the line of the probed header
that leads to an error inside another file.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from shiplint.fastclass import dataclass

_ERROR = re.compile(r"^(?P<file>.+?):(?P<line>\d+):(?:\d+:)? (?:fatal )?error: (?P<text>.*)$")
_CHAIN = re.compile(r"^(?:In file included from|\s+from) (?P<file>.+?):(?P<line>\d+)[,:]?$")


_UNIT = re.compile(r"(?<![\w.])(?P<unit>\d{5})\.cpp")
# The probe runs tools with LC_ALL=C, so ld quotes with a backtick and an apostrophe.
_UNDEFINED = re.compile(r"undefined reference to `(?P<symbol>.*)'\s*$")


def unresolved_by_unit(output: str) -> dict[int, list[str]]:
    """GNU ld's `undefined reference` errors of a link, by the translation unit
    (`00012.cpp`, the probe's unit of header 12) whose object references the symbol:
    ld names the object on the `in function` line and the unit on the error line."""
    found: dict[int, list[str]] = {}
    unit: int | None = None
    for line in output.splitlines():
        named = _UNIT.search(line)
        if named is not None:
            unit = int(named["unit"])
        missing = _UNDEFINED.search(line)
        if missing is not None and unit is not None:
            symbols = found.setdefault(unit, [])
            if missing["symbol"] not in symbols:
                symbols.append(missing["symbol"])
    return found


@dataclass(frozen=True)
class FirstError:
    file: str
    line: int
    text: str
    # Line of the probed header on the way to the error (the error's own line when it is in it).
    header_line: int | None


def first_error(output: str, is_header: Callable[[str], bool]) -> FirstError | None:
    """The first error in `output`; `is_header(path)` says whether a printed path is the
    probed header."""
    chain: list[tuple[str, int]] = []
    for raw in output.splitlines():
        line = raw.rstrip()
        if (found := _CHAIN.match(line)) is not None:
            if line.startswith("In file included from"):
                chain = []
            chain.append((found["file"], int(found["line"])))
            continue
        if (found := _ERROR.match(line)) is not None:
            file, number = found["file"], int(found["line"])
            if is_header(file):
                header_line: int | None = number
            else:
                header_line = next((n for f, n in chain if is_header(f)), None)
            return FirstError(file, number, found["text"], header_line)
    return None
