"""The picture of the checked builds, findings marked: a Mermaid flowchart."""

from __future__ import annotations

from shiplint.report.model import Report

# What a run that read no built artifact draws: the picture is of artifacts.
NOTHING = 'flowchart LR\n  n1["no built artifact was checked: the picture draws artifacts"]\n'


def render(report: Report) -> str:
    return report.picture or NOTHING
