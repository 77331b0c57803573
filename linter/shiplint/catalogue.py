"""The rule catalogue: one YAML document per rule in `rules/`, validated by its schema.

A document read before comes from the user cache as plain data (keyed by its bytes
and the installed PyYAML), so a hook whose rules fire imports no YAML parser.
"""

from __future__ import annotations

import functools
from typing import Any

from shiplint import cache
from shiplint.diagnostics import Severity
from shiplint.fastclass import dataclass
from shiplint.memo import Memo
from shiplint.resources import data_dir, schema_path
from shiplint.validity import known_valid, remember_valid


@dataclass(frozen=True)
class RuleDoc:
    code: str
    slug: str
    severity: Severity
    area: str
    summary: str
    why: str
    example: str
    fix: str
    see_also: tuple[str, ...] = ()


_SCHEMA = "rule.schema.json"


@functools.cache
def _validator() -> Any:
    import json

    import jsonschema

    schema = json.loads(schema_path(_SCHEMA).read_text(encoding="utf-8"))
    return jsonschema.Draft202012Validator(schema)


@functools.cache
def rule_doc(code: str) -> RuleDoc:
    """One rule's document. A run reads only the documents of the rules that fired.
    Raises KeyError for an unknown code, ValueError for a malformed document."""
    path = data_dir("rules") / f"{code}.yaml"
    if not path.is_file():
        raise KeyError(code)
    content = path.read_bytes()
    raw = _load(content)
    # Every finding's rule document is read; one the schema accepted before is not
    # validated again (a run that finds something then never imports jsonschema).
    if not known_valid(content, _SCHEMA):
        errors = sorted(_validator().iter_errors(raw), key=lambda e: list(e.path))
        if errors:
            raise ValueError(f"{path}: {errors[0].message}")
        remember_valid(content, _SCHEMA)
    if raw["code"] != path.stem:
        raise ValueError(f"{path}: code {raw['code']} does not match the file name")
    return RuleDoc(
        code=raw["code"],
        slug=raw["slug"],
        severity=Severity.parse(raw["severity"]),
        area=raw["area"],
        summary=raw["summary"].strip(),
        why=raw["why"].strip(),
        example=raw["example"].rstrip(),
        fix=raw["fix"].strip(),
        see_also=tuple(raw.get("see_also", ())),
    )


def _load(content: bytes) -> Any:
    """The document's data, from the cache when these bytes were read before."""
    return _DOCUMENTS.through(lambda: _parsed(content), content)


def _parsed(content: bytes) -> Any:
    import yaml

    return yaml.load(content, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))


# Kept per document and installed PyYAML; a value marshal does not keep (a date)
# leaves the document to be read each time.
_DOCUMENTS: Memo[Any] = Memo("rule-document", lambda: cache.installed("yaml"))


@functools.cache
def catalogue() -> dict[str, RuleDoc]:
    """Every rule document, by code. Raises ValueError on a malformed document."""
    return {path.stem: rule_doc(path.stem) for path in sorted(data_dir("rules").glob("SL*.yaml"))}


def render_page(doc: RuleDoc) -> str:
    """A rule's page, as `shiplint explain` prints it and docs/rules.md holds it."""
    example = "\n".join(f"    {line}" for line in doc.example.splitlines())
    parts = [
        f"{doc.code} {doc.slug} ({doc.severity.value}, {doc.area})",
        "",
        doc.summary,
        "",
        "Why it matters:",
        doc.why,
        "",
        "Example:",
        example,
        "",
        "Fix:",
        doc.fix,
    ]
    if doc.see_also:
        parts += ["", "See also: " + ", ".join(doc.see_also)]
    return "\n".join(parts)
