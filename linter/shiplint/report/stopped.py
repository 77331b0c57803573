"""GitHub annotations for a run that could not check (exit 2), from what it printed.

    python -m shiplint.report.stopped stderr.txt --root . --title "shiplint could not check"

The CLI prints every manifest, config and input problem as
`shiplint: error: FILE:LINE:COL: message`; each such line becomes an `::error`
on that file and position (when the file lies in the checked tree), so a broken
manifest is marked where it is broken. Output without a position is one `::error`
carrying all of it: nothing the run said is dropped.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Sequence
from pathlib import Path

from shiplint.diagnostics import Location
from shiplint.report.github import escape_data, escape_property
from shiplint.report.locations import place

_LOCATED = re.compile(r"^shiplint: error: (?P<file>.+?):(?P<line>\d+):(?P<col>\d+): (?P<msg>.+)$")


def error_annotations(stderr: str, root: Path, title: str) -> str:
    lines: list[str] = []
    rest: list[str] = []
    for text in stderr.splitlines():
        match = _LOCATED.match(text)
        if match is None:
            if text.strip():
                rest.append(text)
            continue
        line, col = int(match["line"]), int(match["col"])
        where = place(Location(match["file"], line, col), root)
        props = [("title", title)]
        message = match["msg"]
        if where.relative:
            props = [("file", where.file), ("line", str(line)), ("col", str(col)), *props]
        else:
            message = f"{match['file']}:{line}:{col}: {message}"
        rendered = ",".join(f"{k}={escape_property(v)}" for k, v in props)
        lines.append(f"::error {rendered}::{escape_data(message)}")
    if rest or not lines:
        said = "\n".join(rest) or "shiplint stopped without saying why"
        lines.append(f"::error title={escape_property(title)}::{escape_data(said)}")
    return "".join(line + "\n" for line in lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m shiplint.report.stopped")
    parser.add_argument("stderr", type=Path, help="what the failed shiplint run printed")
    parser.add_argument("--root", type=Path, default=Path("."))
    parser.add_argument("--title", default="shiplint could not check")
    args = parser.parse_args(argv)
    text = args.stderr.read_text(encoding="utf-8", errors="replace")
    sys.stdout.write(error_annotations(text, args.root, args.title))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
