"""Artifact rule SL322: a Windows import library whose DLL the artifact does not ship.

SL319 checks one direction (a DLL without its `.lib`); this is the other: a `.lib`
that links consumers against a DLL nobody installs. The consumer links, then fails
to start with a missing DLL.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from shiplint.artifacts.model import Inventory
from shiplint.diagnostics import Finding, Subject
from shiplint.manifest.model import Manifest
from shiplint.rule import Rule


def orphan_import_library(manifest: Manifest, model: Inventory) -> Iterator[Finding]:
    """SL322: an import library naming DLLs the artifact does not contain."""
    shipped = {m.rsplit("/", 1)[-1].lower() for m in model.members}
    for library in model.import_libraries:
        missing = [dll for dll in library.dlls if dll.lower() not in shipped]
        if not missing:
            continue
        yield Finding(
            message=(
                f"is an import library for {', '.join(missing)}, which "
                f"{'the wheel' if model.kind.value == 'wheel' else 'the artifact'} does not "
                "ship: a consumer links against it, then cannot start"
            ),
            location=model.location(library.member),
            subject=Subject(library=library.member.rsplit("/", 1)[-1], artifact=model.label),
            hint=(
                "Ship the DLL beside the package's other DLLs, or stop installing its import "
                "library (and the config entries that point at it)."
            ),
        )


RULES: tuple[Rule[Any], ...] = (Rule("SL322", Inventory, orphan_import_library),)
