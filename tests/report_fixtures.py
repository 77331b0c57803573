"""Hand-built diagnostics for the machine-read reporter tests (SARIF, annotations).

Codes are real catalogue codes so slug and severity agree with `rules/`; the
locations cover each kind the architecture defines: a source file with line and
column, a manifest entry, a member inside a wheel, and a path outside the root.
"""

from __future__ import annotations

from pathlib import Path

from shiplint.catalogue import catalogue
from shiplint.diagnostics import Diagnostic, Location, Severity, Subject
from shiplint.report.model import Report

WHEEL = "executorch-1.5.1-cp311-cp311-manylinux_2_28_x86_64.whl"


def diagnostic(
    code: str,
    message: str,
    location: Location,
    subject: Subject | None = None,
    *,
    hint: str | None = None,
    waived: str | None = None,
    severity: Severity | None = None,
) -> Diagnostic:
    doc = catalogue()[code]
    return Diagnostic(
        code=code,
        slug=doc.slug,
        severity=severity or doc.severity,
        message=message,
        location=location,
        subject=subject or Subject(),
        hint=hint,
        waived=waived,
    )


def sample_diagnostics() -> tuple[Diagnostic, ...]:
    return (
        diagnostic(
            "SL001",
            "waiver for SL305 (library=executorch_backend_qnn) matched no finding",
            Location("shiplint.yaml", 120, 5),
            hint="Remove the waiver, or correct its rule code or subject.",
        ),
        diagnostic(
            "SL002",
            "rule SL305 failed with KeyError: 'x' at linter/checks/artifacts.py:40",
            Location(f"dist/{WHEEL}", member="executorch/lib/libexecutorch.so"),
            Subject(library="executorch", artifact=WHEEL),
            hint="100% a bug,\r\nplease report it",
        ),
        diagnostic(
            "SL002",
            "second, distinct crash: 50% done",
            Location("cmake/dir, with comma/x:y.cmake", 7),
            Subject(target="executorch::kernels_quantized"),
            waived="known upstream, see pytorch/executorch#21642",
        ),
        diagnostic(
            "SL001",
            "an info-level note outside the tree",
            Location("/elsewhere/shiplint.yaml", 3, 1),
            severity=Severity.INFO,
        ),
    )


def sample_report(root: Path, diagnostics: tuple[Diagnostic, ...] | None = None) -> Report:
    return Report(
        diagnostics=sample_diagnostics() if diagnostics is None else diagnostics,
        fail_on=Severity.ERROR,
        root=root,
    )
