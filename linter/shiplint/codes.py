"""Rule codes and code prefixes: which codes exist, and which codes a prefix names.

The one place that knows it. `--select`/`--ignore`, `[tool.shiplint]`, manifest
waivers and the engine's own selection all ask here, so `SL3` means the same
thing everywhere. The codes are data: the rule documents in `rules/` (a test
keeps them equal to the registered rules), so validating a config or a manifest
imports no rule.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable

from shiplint.resources import data_dir


@functools.cache
def rule_codes() -> tuple[str, ...]:
    """Every rule code, from the rule documents (`rules/SL001.yaml` -> `SL001`), sorted."""
    return tuple(sorted(path.stem for path in data_dir("rules").glob("SL*.yaml")))


def covers(pattern: str, code: str) -> bool:
    """Whether a code or code prefix (`SL305`, `SL3`) names `code`."""
    return code.startswith(pattern)


def names_a_rule(pattern: str, codes: Iterable[str]) -> bool:
    """Whether `pattern` names at least one of `codes` (an unknown one is a user's typo)."""
    return any(covers(pattern, code) for code in codes)


def unknown_patterns(patterns: Iterable[str], codes: Iterable[str]) -> list[str]:
    """The patterns that name none of `codes`, in the order given."""
    known = tuple(codes)
    return [p for p in patterns if not names_a_rule(p, known)]
