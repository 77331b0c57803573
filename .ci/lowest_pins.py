"""Print pip constraints that pin every runtime dependency to its declared floor.

pip has no lowest-version resolution, so `.ci/lowest-versions` installs against
these pins: `name>=X` becomes `name==X` (a marker is kept). A dependency without a
`>=` floor is an error, because nothing would then test its lowest version.

Usage: python .ci/lowest_pins.py [pyproject.toml]
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:
    import tomli as tomllib

# name, a `>=` floor first (any ceiling after it is left to the resolver), an optional marker.
_FLOOR = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*>=\s*([0-9][^,;\s]*)\s*(?:,[^;]*)?(;.*)?$")


def pins(pyproject: Path) -> list[str]:
    """One `name==floor[; marker]` line per runtime dependency; ValueError names one without a floor."""
    table = tomllib.loads(pyproject.read_text(encoding="utf-8"))
    lines = []
    for requirement in table["project"]["dependencies"]:
        match = _FLOOR.match(requirement)
        if match is None:
            raise ValueError(f"{pyproject}: dependency {requirement!r} has no '>=' floor")
        name, floor, marker = match.groups()
        lines.append(f"{name}=={floor}{marker or ''}")
    return lines


def main(argv: list[str]) -> int:
    path = Path(argv[0]) if argv else Path("pyproject.toml")
    try:
        print("\n".join(pins(path)))
    except ValueError as error:
        print(f"lowest_pins: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
