"""Manifest and config errors: each names the file, line, column and the path inside the document."""

from __future__ import annotations

from shiplint.diagnostics import Location
from shiplint.fastclass import dataclass


@dataclass(frozen=True)
class Problem:
    # The file, line and column of the problem.
    location: Location
    # The path inside the document, e.g. libraries[3].owns.components[0].
    where: str
    message: str

    def render(self) -> str:
        where = f" (at {self.where})" if self.where else ""
        return f"{self.location.render()}: {self.message}{where}"


class InputError(Exception):
    """One or more problems that make an input unusable (exit code 2)."""

    def __init__(self, problems: list[Problem]) -> None:
        super().__init__("; ".join(p.render() for p in problems))
        self.problems = problems


class ManifestError(InputError):
    pass


def json_path(parts: tuple[str | int, ...]) -> str:
    out = ""
    for part in parts:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else part
    return out
