"""SARIF 2.1.0 for GitHub code scanning (`github/codeql-action/upload-sarif`).

Choices worth knowing:
- Every catalogued rule is listed in `tool.driver.rules` (not only those that
  fired), so `ruleIndex` and the rule help are there for any result.
- URIs are relative to `%SRCROOT%`, the checked root, which `originalUriBaseIds`
  states as a file URI. A path outside the root becomes an absolute file URI.
- A finding inside an archive points at the archive file (its path as given,
  e.g. `dist/wheel.whl`); the member is a logical location (`fullyQualifiedName`
  `dist/wheel.whl!/member`) and a result property, because code scanning can only
  show repository files.
- `partialFingerprints["shiplint/v1"]` hashes code, subject and path, never the
  line or the message, so an alert survives unrelated edits; an artifact counts by
  its file name (not the directory it was built in), and wheel versions and
  the subject's CMake version are left out, so an alert carries over to the next
  release of the wheel and to a newer CMake on the same route.
  Identical keys within one run get an occurrence number.
- A waived finding keeps its result with an external suppression whose
  justification is the waiver's reason: code scanning shows it as dismissed.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from typing import Any
from urllib.parse import quote

from shiplint.catalogue import RuleDoc, catalogue
from shiplint.diagnostics import Diagnostic, Severity
from shiplint.report.locations import identity, place, versionless
from shiplint.report.model import Report

SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"
SRCROOT = "%SRCROOT%"
FINGERPRINT_KEY = "shiplint/v1"

_LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}


def render(report: Report) -> str:
    return json.dumps(sarif(report), indent=2, ensure_ascii=False) + "\n"


def sarif(report: Report) -> dict[str, Any]:
    docs = sorted(catalogue().values(), key=lambda d: d.code)
    index = {doc.code: i for i, doc in enumerate(docs)}
    fingerprints = _fingerprints(report.diagnostics)
    run: dict[str, Any] = {
        "tool": {
            "driver": {
                "name": "shiplint",
                "semanticVersion": report.tool_version,
                "version": report.tool_version,
                "rules": [_rule(doc) for doc in docs],
            }
        },
        "originalUriBaseIds": {SRCROOT: {"uri": report.root.resolve().as_uri() + "/"}},
        "results": [
            _result(report, d, index.get(d.code), fp)
            for d, fp in zip(report.diagnostics, fingerprints, strict=True)
        ],
        "columnKind": "unicodeCodePoints",
        "properties": {"summary": report.summary()},
    }
    return {"$schema": SCHEMA_URI, "version": "2.1.0", "runs": [run]}


def _rule(doc: RuleDoc) -> dict[str, Any]:
    return {
        "id": doc.code,
        "name": doc.slug,
        "shortDescription": {"text": doc.summary},
        "fullDescription": {"text": doc.why},
        "help": {"text": _help_text(doc), "markdown": _help_markdown(doc)},
        "defaultConfiguration": {"level": _LEVEL[doc.severity]},
        "properties": {"tags": ["packaging", doc.area]},
    }


def _help_text(doc: RuleDoc) -> str:
    return f"{doc.summary}\n\n{doc.why}\n\nExample:\n{doc.example}\n\nFix:\n{doc.fix}\n"


def _help_markdown(doc: RuleDoc) -> str:
    return (
        f"**{doc.code} {doc.slug}**: {doc.summary}\n\n{doc.why}\n\n"
        f"#### Example\n\n```\n{doc.example}\n```\n\n#### Fix\n\n{doc.fix}\n"
    )


def _result(
    report: Report, diagnostic: Diagnostic, rule_index: int | None, fingerprint: str
) -> dict[str, Any]:
    text = diagnostic.message
    if diagnostic.hint:
        text = f"{text}\n{diagnostic.hint}"
    result: dict[str, Any] = {"ruleId": diagnostic.code}
    if rule_index is not None:
        result["ruleIndex"] = rule_index
    result.update(
        {
            "level": _LEVEL[diagnostic.severity],
            "message": {"text": text},
            "locations": [_location(report, diagnostic)],
            "partialFingerprints": {FINGERPRINT_KEY: fingerprint},
        }
    )
    properties: dict[str, Any] = {"slug": diagnostic.slug}
    if subject := diagnostic.subject.as_dict():
        properties["subject"] = subject
    if diagnostic.hint:
        properties["hint"] = diagnostic.hint
    member = diagnostic.location.member
    if member is not None:
        # The region would be a line of the archive file; keep the member's line here.
        properties["archiveMember"] = member
        properties["location"] = diagnostic.location.render()
    result["properties"] = properties
    if diagnostic.waived is not None:
        result["suppressions"] = [
            {"kind": "external", "status": "accepted", "justification": diagnostic.waived}
        ]
    return result


def _location(report: Report, diagnostic: Diagnostic) -> dict[str, Any]:
    loc = diagnostic.location
    where = place(loc, report.root, diagnostic.subject.artifact)
    artifact: dict[str, Any]
    if where.relative:
        artifact = {"uri": quote(where.file), "uriBaseId": SRCROOT}
    else:
        artifact = {"uri": "file://" + quote(where.file)}
    physical: dict[str, Any] = {"artifactLocation": artifact}
    # A line of an artifact (a built file, not a source) would not be a line to show.
    if loc.line is not None and not where.artifact:
        region: dict[str, Any] = {"startLine": loc.line}
        if loc.column is not None:
            region["startColumn"] = loc.column
        physical["region"] = region
    out: dict[str, Any] = {"physicalLocation": physical}
    if where.member is not None:
        out["logicalLocations"] = [
            {"name": where.member, "fullyQualifiedName": loc.file, "kind": "resource"}
        ]
    return out


def _fingerprints(diagnostics: tuple[Diagnostic, ...]) -> list[str]:
    seen: Counter[str] = Counter()
    out = []
    for d in diagnostics:
        subject = {
            k: versionless(v)
            for k, v in d.subject.as_dict().items()
            # Bumping CI's CMake must not turn every config finding into a new alert.
            if k != "cmake_version"
        }
        where = identity(d.location, d.subject.artifact)
        key = json.dumps([d.code, subject, where], sort_keys=True, ensure_ascii=False)
        seen[key] += 1
        digest = hashlib.sha256(key.encode()).hexdigest()[:32]
        # A second finding with the same key in one run still needs its own alert.
        out.append(digest if seen[key] == 1 else f"{digest}:{seen[key]}")
    return out
