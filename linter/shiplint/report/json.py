"""The JSON report; its shape is schemas/report.schema.json."""

from __future__ import annotations

import json

from shiplint.report.model import Report


def render(report: Report) -> str:
    document: dict[str, object] = {
        "version": 1,
        "tool": {"name": "shiplint", "version": report.tool_version},
        "diagnostics": [d.as_dict() for d in report.diagnostics],
        "summary": report.summary(),
    }
    if report.picture:
        document["picture"] = report.picture
    return json.dumps(document, indent=2, sort_keys=False) + "\n"
