"""The full SL3xx report on each real ExecuTorch wheel, with the example manifest, pinned.

Every finding in these files is explained in docs/findings/artifacts.md. When a
rule's output changes on purpose, regenerate with
`SHIPLINT_UPDATE_GOLDEN=1 python -m pytest tests/test_artifacts_golden.py` and
review the diff (and the explanations) before committing.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from shiplint.artifacts.archive import open_artifact
from shiplint.artifacts.inventory import read_inventory
from shiplint.engine import Selection, lint
from shiplint.manifest.load import load_manifest
from shiplint.manifest.model import Manifest
from shiplint.registry import RULES

from tests.material import EXAMPLE_MANIFEST, REPO, portable, wheel

GOLDEN = REPO / "tests" / "golden" / "artifacts"

WHEELS = [
    ("1.5.1", "manylinux_2_28_x86_64"),
    ("1.5.1", "manylinux_2_28_aarch64"),
    ("1.5.1", "macosx_14_0_arm64"),
    ("1.5.1", "win_amd64"),
    ("1.4.1", "manylinux_2_28_x86_64"),
]


@pytest.fixture(scope="module")
def example() -> Manifest:
    return load_manifest(EXAMPLE_MANIFEST, label="examples/executorch/shiplint.yaml")


def report(manifest: Manifest, path: Path) -> list[dict[str, Any]]:
    with open_artifact(path) as tree:
        model = read_inventory(tree, manifest)
    found = lint(RULES, manifest, [model], Selection(select=("SL3",)))
    return list(json.loads(portable(json.dumps([d.as_dict() for d in found]))))


@pytest.mark.parametrize(("version", "platform"), WHEELS)
def test_real_wheel_report_is_pinned(example: Manifest, version: str, platform: str) -> None:
    path = wheel(version, platform)
    got = report(example, path)
    golden = GOLDEN / f"executorch-{version}-{platform}.json"
    if os.environ.get("SHIPLINT_UPDATE_GOLDEN"):
        golden.parent.mkdir(parents=True, exist_ok=True)
        golden.write_text(json.dumps(got, indent=2) + "\n", encoding="utf-8")
    assert golden.is_file(), f"no golden report {golden}; run with SHIPLINT_UPDATE_GOLDEN=1"
    assert got == json.loads(golden.read_text(encoding="utf-8"))


def _codes(version: str, platform: str) -> dict[str, int]:
    pinned = json.loads((GOLDEN / f"executorch-{version}-{platform}.json").read_text())
    counts: dict[str, int] = {}
    for diagnostic in pinned:
        counts[diagnostic["code"]] = counts.get(diagnostic["code"], 0) + 1
    return counts


def test_known_real_problems_are_reported() -> None:
    """What docs/anchors.md says a good run reports on 1.5.1, independent of the exact text."""
    x86 = json.loads((GOLDEN / "executorch-1.5.1-manylinux_2_28_x86_64.json").read_text())
    runpath = [d for d in x86 if d["code"] == "SL310"]
    assert any("$ORIGIN/../src/executorch/lib" in d["message"] for d in runpath)
    assert {d["subject"]["library"] for d in runpath} >= {
        "executorch",
        "executorch_kernels_quantized",
        "_C",
    }
    duplicates = [d for d in x86 if d["code"] == "SL307"]
    assert any(
        d["subject"]["library"] == "executorch_kernels_quantized"
        and "executorch_kernels_optimized" in d["message"]
        for d in duplicates
    )
    # 1.4.1 predates the shared runtime: every required SDK library is missing.
    assert _codes("1.4.1", "manylinux_2_28_x86_64")["SL301"] == 9
    # The Windows wheel is read on Linux, on Windows' terms, without a crash.
    assert "SL315" not in _codes("1.5.1", "win_amd64")


def test_several_artifacts_in_one_run(example: Manifest) -> None:
    """All platform wheels of one release in one run: each judged on its own platform."""
    models = []
    for platform in ("manylinux_2_28_x86_64", "macosx_14_0_arm64", "win_amd64"):
        with open_artifact(wheel("1.5.1", platform)) as tree:
            models.append(read_inventory(tree, example))
    found = lint(RULES, example, models, Selection(select=("SL3",)))
    together = json.loads(portable(json.dumps([d.as_dict() for d in found])))
    expected = [
        d
        for platform in ("manylinux_2_28_x86_64", "macosx_14_0_arm64", "win_amd64")
        for d in json.loads((GOLDEN / f"executorch-1.5.1-{platform}.json").read_text())
    ]
    key = lambda d: json.dumps(d, sort_keys=True)  # noqa: E731
    assert sorted(together, key=key) == sorted(expected, key=key)
