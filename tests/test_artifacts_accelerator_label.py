"""SL321, accelerator builds: a local version label (`+cu130`) requires the distributions
the manifest's `externals.accelerator_builds` names for it.

Doctored copies of the real 1.5.1 Linux wheel's METADATA (its Version given a local
label, Requires-Dist entries added), with the example manifest extended by an
`accelerator_builds` entry, loaded and schema-checked like any manifest.
"""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest
from shiplint.artifacts.archive import open_artifact
from shiplint.artifacts.inventory import read_inventory
from shiplint.diagnostics import Diagnostic
from shiplint.engine import Selection, lint
from shiplint.manifest.errors import ManifestError
from shiplint.manifest.load import load_manifest
from shiplint.manifest.model import Manifest
from shiplint.registry import RULES

from tests.artifact_libs import pack_wheel
from tests.material import EXAMPLE_MANIFEST, wheel

METADATA = "executorch-1.5.1.dist-info/METADATA"
BUILDS = """\
  accelerator_builds:
    - label: "cu13*"
      requires: [nvidia-cuda-runtime-cu13, torch]
    - label: "rocm6.*"
      requires: [pytorch-triton-rocm]
"""


def _manifest(tmp_path: Path, builds: str = BUILDS) -> Manifest:
    text = EXAMPLE_MANIFEST.read_text(encoding="utf-8")
    anchor = "\nregistries:\n"
    assert anchor in text
    path = tmp_path / "shiplint.yaml"
    path.write_text(text.replace(anchor, f"{builds}{anchor}", 1), encoding="utf-8")
    return load_manifest(path)


def _real_metadata() -> str:
    with zipfile.ZipFile(wheel("1.5.1", "manylinux_2_28_x86_64")) as real:
        return real.read(METADATA).decode()


def _sl321(tmp_path: Path, version: str, added: tuple[str, ...] = ()) -> list[Diagnostic]:
    text = _real_metadata()
    assert "\nVersion: 1.5.1\n" in text
    text = text.replace("\nVersion: 1.5.1\n", f"\nVersion: {version}\n", 1)
    head, _, body = text.partition("\n\n")
    head += "".join(f"\nRequires-Dist: {r}" for r in added)
    metadata = f"{head}\n\n{body}".encode()
    path = pack_wheel(
        tmp_path / f"executorch-{version}-cp311-cp311-manylinux_2_28_x86_64.whl",
        {METADATA: metadata},
    )
    mf = _manifest(tmp_path)
    with open_artifact(path) as tree:
        model = read_inventory(tree, mf)
    return lint(RULES, mf, [model], Selection(select=("SL321",)))


def test_fires_for_each_distribution_the_label_needs(tmp_path: Path) -> None:
    diags = _sl321(tmp_path, "1.5.1+cu130")
    assert [d.location.member for d in diags] == [METADATA, METADATA]
    first, second = (d.message for d in diags)
    assert "version 1.5.1+cu130 names the accelerator build +cu130" in first
    assert "needs nvidia-cuda-runtime-cu13" in first and "needs torch" in second


def test_quiet_when_the_metadata_requires_them(tmp_path: Path) -> None:
    added = ("nvidia-cuda-runtime-cu13>=13.0", "torch==2.10.0+cu130")
    assert _sl321(tmp_path, "1.5.1+cu130", added) == []


def test_a_marker_that_leaves_out_the_wheel_s_platform_does_not_count(tmp_path: Path) -> None:
    added = ('nvidia-cuda-runtime-cu13; sys_platform == "win32"', "torch")
    (diag,) = _sl321(tmp_path, "1.5.1+cu130", added)
    assert "needs nvidia-cuda-runtime-cu13" in diag.message


@pytest.mark.parametrize(
    ("version", "expected"),
    [
        ("1.5.1", []),  # the real wheel: no local label
        ("1.5.1+cpu", []),  # a label no entry names
        ("1.5.1+cu126", []),  # another CUDA major than cu13*
        ("1.5.1+ROCm6.2", ["pytorch-triton-rocm"]),  # labels are compared in lower case
    ],
)
def test_only_a_label_an_entry_names_needs_anything(
    tmp_path: Path, version: str, expected: list[str]
) -> None:
    diags = _sl321(tmp_path, version)
    assert [d.message.split("needs ", 1)[1].split(",", 1)[0] for d in diags] == expected


def test_an_entry_without_distributions_is_a_manifest_error(tmp_path: Path) -> None:
    bad = '  accelerator_builds:\n    - label: "cu13*"\n      requires: []\n'
    with pytest.raises(ManifestError) as caught:
        _manifest(tmp_path, bad)
    assert "accelerator_builds" in str(caught.value)
