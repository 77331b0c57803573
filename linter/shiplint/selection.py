"""Which rules run: `select` (empty: all) minus `ignore`, by code or code prefix."""

from __future__ import annotations

from shiplint.codes import covers
from shiplint.fastclass import dataclass


@dataclass(frozen=True)
class Selection:
    select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()

    def enabled(self, code: str) -> bool:
        if self.select and not any(covers(s, code) for s in self.select):
            return False
        return not any(covers(i, code) for i in self.ignore)


# Every rule: the default selection.
ALL = Selection()
