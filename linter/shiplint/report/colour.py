"""ANSI colour for the text report: on a terminal only, as NO_COLOR and FORCE_COLOR say.

https://no-color.org: NO_COLOR set to anything but the empty string turns colour
off. https://force-color.org: FORCE_COLOR set likewise turns it on even when the
output is piped (CI logs that render ANSI). NO_COLOR wins when both are set, as
in CPython's own colour support. Without either, colour goes only to a terminal
that is not TERM=dumb; a pipe, a file and `--output` get plain text.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TextIO

from shiplint.diagnostics import Severity
from shiplint.fastclass import dataclass

_RESET = "\033[0m"
_SEVERITY = {Severity.ERROR: "1;31", Severity.WARNING: "1;33", Severity.INFO: "1;36"}


def wants_colour(stream: TextIO, environ: Mapping[str, str]) -> bool:
    if environ.get("NO_COLOR"):
        return False
    if environ.get("FORCE_COLOR"):
        return True
    if environ.get("TERM") == "dumb":
        return False
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


@dataclass(frozen=True)
class Palette:
    """Paints text when enabled; otherwise returns it unchanged."""

    enabled: bool = False

    def _paint(self, sgr: str, text: str) -> str:
        return f"\033[{sgr}m{text}{_RESET}" if self.enabled else text

    def severity(self, severity: Severity, text: str) -> str:
        return self._paint(_SEVERITY[severity], text)

    def code(self, text: str) -> str:
        return self._paint("1", text)

    def faint(self, text: str) -> str:
        return self._paint("2", text)

    def verdict(self, passed: bool, text: str) -> str:
        return self._paint("1;32" if passed else "1;31", text)


PLAIN = Palette(enabled=False)
