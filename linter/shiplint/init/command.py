"""Run init: gather, decide, render, and prove the result loads as a manifest.

The CLI owns the arguments, the output file and the exit code; this module returns
the manifest's text and what to tell the user.
"""

from __future__ import annotations

import tempfile
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from shiplint.artifacts.reading import Reader
from shiplint.fastclass import dataclass
from shiplint.init.decide import decide
from shiplint.init.facts import gather
from shiplint.init.model import InitError
from shiplint.init.render import render
from shiplint.request import Progress


@dataclass(frozen=True)
class InitResult:
    text: str
    # Where the routes disagree (written as the newest route publishes it).
    disagreements: tuple[str, ...]
    warnings: tuple[str, ...]
    libraries: int
    components: int


def run_init(
    artifacts: Sequence[Path],
    cmakes: Sequence[str],
    root: Path | None,
    reader: Reader,
    progress: Progress,
    timeout: float | None = None,
    check_command: str = "",
) -> InitResult:
    """Raises InitError (exit 2) for input init cannot start from."""
    facts = gather(artifacts, cmakes, reader, progress, timeout)
    draft = decide(facts)
    if root is not None:
        from shiplint.init.build import with_build

        progress.step(f"reading the CMake sources and build declarations under {root}")
        draft = with_build(draft, root)
    text = render(replace(draft, check_command=check_command))
    _loads(text)
    return InitResult(
        text,
        draft.disagreements,
        draft.warnings,
        len(draft.libraries),
        len(draft.components),
    )


def _loads(text: str) -> None:
    """The written manifest passes the schema and the cross-field checks, as `check`
    will load it; a failure here is init's defect, said as one."""
    from shiplint.manifest.errors import InputError
    from shiplint.manifest.load import load_manifest

    with tempfile.TemporaryDirectory(prefix="shiplint-init-") as tmp:
        path = Path(tmp) / "shiplint.yaml"
        path.write_text(text, encoding="utf-8")
        try:
            load_manifest(path, "the written manifest")
        except InputError as exc:
            raise AssertionError(f"init wrote a manifest that does not load: {exc}") from exc


__all__ = ["InitError", "InitResult", "run_init"]
