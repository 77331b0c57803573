"""Run the given rules over the models of one run. Never prints, never exits.

The rules are a parameter (the CLI passes the registry's): the engine knows how
to run a rule, not which rules exist.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace
from typing import Any

from shiplint.catalogue import rule_doc
from shiplint.codes import covers
from shiplint.diagnostics import Diagnostic, Finding
from shiplint.engine_models import RuleCrash, WaiverUsage, manifest_for
from shiplint.manifest.model import Manifest, Waiver
from shiplint.rule import Rule
from shiplint.safetext import escape_name, escape_text
from shiplint.selection import ALL, Selection

__all__ = ["Selection", "lint", "stamp"]


def stamp(code: str, finding: Finding) -> Diagnostic:
    doc = rule_doc(code)
    # Findings quote their inputs (a config's error text, member and symbol names): every
    # reporter gets them with control characters escaped.
    location = finding.location
    subject = finding.subject
    return Diagnostic(
        code=code,
        slug=doc.slug,
        severity=doc.severity,
        message=escape_text(finding.message),
        location=replace(
            location,
            path=escape_name(location.path),
            member=None if location.member is None else escape_name(location.member),
        ),
        subject=type(subject)(**{k: escape_name(v) for k, v in subject.as_dict().items()}),
        hint=escape_text(finding.hint) if finding.hint is not None else None,
    )


def _run(
    rules: Sequence[Rule[Any]], rule: Rule[Any], manifest: Manifest, model: object
) -> Iterable[Diagnostic]:
    try:
        findings = list(rule.run(manifest_for(manifest, model), model))
    except Exception as exc:  # a rule bug must not hide every other finding
        crash = RuleCrash(rule.code, f"{type(exc).__name__}: {exc}", _last_frame(exc))
        yield from _run_crash_rules(rules, manifest, crash)
        return
    for finding in findings:
        yield stamp(rule.code, finding)


def _last_frame(exc: BaseException) -> str:
    import traceback  # only a crashing rule needs it

    frames = traceback.extract_tb(exc.__traceback__)
    if not frames:
        return "<unknown>"
    last = frames[-1]
    return f"{last.filename}:{last.lineno}"


def _run_crash_rules(
    rules: Sequence[Rule[Any]], manifest: Manifest, crash: RuleCrash
) -> Iterable[Diagnostic]:
    for rule in rules:
        if rule.model is RuleCrash:
            for finding in rule.run(manifest, crash):
                yield stamp(rule.code, finding)


def _waive(waivers: Sequence[Waiver], diagnostic: Diagnostic) -> tuple[Diagnostic, Waiver | None]:
    for waiver in waivers:
        if covers(waiver.rule, diagnostic.code) and diagnostic.subject.matches(
            waiver.subject_pattern()
        ):
            return replace(diagnostic, waived=waiver.reason), waiver
    return diagnostic, None


def lint(
    rules: Sequence[Rule[Any]],
    manifest: Manifest,
    models: Sequence[object],
    selection: Selection = ALL,
) -> list[Diagnostic]:
    """Every diagnostic the enabled `rules` report on `models`, waivers applied, sorted."""
    diagnostics: list[Diagnostic] = []
    ran: set[str] = set()
    for rule in rules:
        if rule.model in (WaiverUsage, RuleCrash) or not selection.enabled(rule.code):
            continue
        for model in models:
            if isinstance(model, rule.model):
                ran.add(rule.code)
                diagnostics.extend(_run(rules, rule, manifest, model))

    used: set[int] = set()
    waived: list[Diagnostic] = []
    for diagnostic in diagnostics:
        result, waiver = _waive(manifest.waivers, diagnostic)
        if waiver is not None:
            used.add(id(waiver))
        waived.append(result)

    # A waiver is unused only when a rule it could match actually ran: a
    # sources-only pre-commit run must not call every artifact waiver stale.
    unused = tuple(
        w
        for w in manifest.waivers
        if id(w) not in used and any(covers(w.rule, code) for code in ran)
    )
    usage = WaiverUsage(unused)
    for rule in rules:
        if rule.model is WaiverUsage and selection.enabled(rule.code):
            waived.extend(_run(rules, rule, manifest, usage))
    return sorted(waived, key=Diagnostic.sort_key)
