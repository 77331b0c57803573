"""Render a saved JSON report in another format, without checking anything again.

    shiplint check --format json --output report.json ...
    python -m shiplint.report.convert report.json --format sarif --output shiplint.sarif

One `shiplint check` run can take a while (CMake evaluations, every library of
every wheel); the GitHub Action runs it once, as JSON, and renders the SARIF
file, the annotations and the step summary from that. The JSON report carries
every field of every diagnostic, so the conversion loses nothing; the checked
root, which the JSON report does not record, is given with --root.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from shiplint.diagnostics import (
    MEMBER_SEPARATOR,
    Diagnostic,
    Location,
    Severity,
    Subject,
    parse_fail_on,
)
from shiplint.report import FORMATS, reporter
from shiplint.report.model import Report


class ReportFormatError(ValueError):
    pass


def load_report(text: str, root: Path) -> Report:
    """The Report a `--format json` run rendered. Raises ReportFormatError when it is not one."""
    try:
        document = json.loads(text)
        if document.get("version") != 1:
            raise ReportFormatError(f"unsupported report version {document.get('version')!r}")
        diagnostics = tuple(_diagnostic(d) for d in document["diagnostics"])
        return Report(
            diagnostics=diagnostics,
            fail_on=parse_fail_on(document["summary"]["fail_on"]),
            root=root,
            tool_version=document["tool"]["version"],
            picture=document.get("picture", ""),
        )
    except ReportFormatError:
        raise
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise ReportFormatError(
            f"not a shiplint JSON report ({type(exc).__name__}: {exc})"
        ) from None


def _diagnostic(raw: dict[str, Any]) -> Diagnostic:
    loc = raw["location"]
    waived = raw.get("waived")
    return Diagnostic(
        code=raw["code"],
        slug=raw["slug"],
        severity=Severity.parse(raw["severity"]),
        message=raw["message"],
        location=_location(loc),
        subject=Subject(**raw.get("subject", {})),
        hint=raw.get("hint"),
        waived=waived["reason"] if waived is not None else None,
    )


def _location(raw: dict[str, Any]) -> Location:
    path, member = raw["path"], raw.get("member")
    if member is None and MEMBER_SEPARATOR in path:
        # A report of an older shiplint wrote the member into the path.
        path, _, member = path.partition(MEMBER_SEPARATOR)
    return Location(path, raw.get("line"), raw.get("column"), member)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m shiplint.report.convert", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("report", type=Path, help="a report written by --format json")
    parser.add_argument("--format", required=True, choices=FORMATS)
    parser.add_argument("--root", type=Path, default=Path("."), help="the root that was checked")
    parser.add_argument("--output", type=Path, help="write here instead of stdout")
    args = parser.parse_args(argv)
    try:
        report = load_report(args.report.read_text(encoding="utf-8"), args.root.resolve())
    except (OSError, ReportFormatError) as exc:
        print(f"shiplint: error: {args.report}: {exc}", file=sys.stderr)
        return 2
    text = reporter(args.format)(report)
    if args.output:
        args.output.write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
