"""The pictures the reports show: of the checked builds, and of what a diff changed."""

from __future__ import annotations

from collections.abc import Sequence

from shiplint.diagnostics import Diagnostic
from shiplint.diff.model import Diff
from shiplint.manifest.model import Manifest
from shiplint.picture.package import draw
from shiplint.picture.views import check_view, diff_view
from shiplint.snapshot import Snapshot, by_platform


def check_picture(
    builds: Sequence[tuple[Snapshot, str]], manifest: Manifest, diagnostics: Sequence[Diagnostic]
) -> str:
    """Each checked build (its snapshot and its path as findings locate it), findings marked."""
    return draw([check_view(snap, path, manifest, diagnostics) for snap, path in builds])


def diff_picture(
    old: Sequence[Snapshot], new: Sequence[Snapshot], manifest: Manifest, diff: Diff
) -> str:
    """Each platform of the later build (or of the earlier, when it is gone), what changed marked."""
    before, after = by_platform(old), by_platform(new)
    return draw(
        [
            diff_view(
                before.get(platform),
                after.get(platform),
                manifest,
                [c for c in diff.changes if c.platform == platform],
            )
            for platform in sorted(before.keys() | after.keys())
        ]
    )
