"""What a rule is: a code, the model it reads, and a pure check.

Slug, severity and documentation are data in `rules/<CODE>.yaml`; the engine
stamps them on every finding, so they are stated once.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, Generic, TypeVar

from shiplint.diagnostics import Finding
from shiplint.fastclass import dataclass
from shiplint.manifest.model import Manifest

M = TypeVar("M")


@dataclass(frozen=True)
class Rule(Generic[M]):
    code: str
    # The model type this rule reads; the engine runs it once per model instance of that type.
    model: type[M]
    check: Callable[[Manifest, M], Iterable[Finding]]

    def run(self, manifest: Manifest, model: Any) -> Iterable[Finding]:
        return self.check(manifest, model)
