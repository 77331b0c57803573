"""`path:line:col: CODE [severity] message`, then the hint; a summary line last."""

from __future__ import annotations

from shiplint.report.model import Report


def render(report: Report) -> str:
    lines: list[str] = []
    for d in report.diagnostics:
        waived = f" (waived: {d.waived})" if d.waived else ""
        lines.append(f"{d.location.render()}: {d.code} [{d.severity.value}] {d.message}{waived}")
        if d.hint and not d.waived:
            lines.append(f"  hint: {d.hint}")
    s = report.summary()
    verdict = "passed" if report.passed else "failed"
    lines.append(
        f"shiplint: {verdict}: {s['errors']} error(s), {s['warnings']} warning(s), "
        f"{s['infos']} info, {s['waived']} waived (failing at {s['fail_on']})"
    )
    return "\n".join(lines) + "\n"
