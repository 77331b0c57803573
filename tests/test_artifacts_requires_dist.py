"""SL321: a wheel whose real compiled library NEEDs a provided distribution's library requires it.

libpkg_comp.so (gcc output) NEEDs libpkg.so, which the manifest says the `pkgbase`
distribution provides; the wheel's METADATA varies.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from shiplint.artifacts.archive import open_artifact
from shiplint.artifacts.inventory import read_inventory
from shiplint.checks.requirements import _environments, _required
from shiplint.diagnostics import Diagnostic
from shiplint.engine import Selection, lint
from shiplint.manifest.model import Externals, LibraryKind, ProvidedLibraries
from shiplint.registry import RULES

from tests.artifact_libs import built_libs, pack_wheel
from tests.builders import library, manifest
from tests.material import REPO

__all__ = ["built_libs"]

TAG = "pkg-1.0-cp311-cp311-manylinux_2_28_x86_64.whl"


def _sl321(
    tmp_path: Path, built: dict[str, Path], requires: list[str], distribution: str | None
) -> list[Diagnostic]:
    provided = ProvidedLibraries("pkgbase", ("libpkg.so",), distribution)
    mf = manifest(
        libraries=(library("pkg_comp", LibraryKind.RUNTIME),),
        externals=Externals(policies=("platform-tag",), provided=(provided,)),
    )
    text = "Metadata-Version: 2.1\nName: pkg\nVersion: 1.0\n" + "".join(
        f"Requires-Dist: {r}\n" for r in requires
    )
    members: dict[str, Path | bytes] = {
        "pkg/lib/libpkg_comp.so": built["libpkg_comp.so"],
        "pkg-1.0.dist-info/METADATA": text.encode(),
    }
    path = pack_wheel(tmp_path / TAG, members)
    with open_artifact(path) as tree:
        model = read_inventory(tree, mf)
    return lint(RULES, mf, [model], Selection(select=("SL321",)))


@pytest.mark.parametrize(
    "requires",
    [
        [],
        ["numpy"],
        ['pkgbase>=2; sys_platform == "darwin"'],
        ['pkgbase; extra == "full"'],
        ['pkgbase; python_version < "3.10"'],
    ],
)
def test_fires_when_no_requirement_covers_the_tag(
    tmp_path: Path, built_libs: dict[str, Path], requires: list[str]
) -> None:
    (diag,) = _sl321(tmp_path, built_libs, requires, "pkgbase")
    assert diag.location.member == "pkg-1.0.dist-info/METADATA"
    assert "pkg/lib/libpkg_comp.so (libpkg.so) loads pkgbase's libraries" in diag.message


@pytest.mark.parametrize(
    "requires",
    [
        ["pkgbase>=2"],
        ['PkgBase; python_version >= "3.10" and platform_machine == "x86_64"'],
        ['pkgbase; sys_platform == "linux"'],
    ],
)
def test_quiet_when_a_requirement_covers_the_tag(
    tmp_path: Path, built_libs: dict[str, Path], requires: list[str]
) -> None:
    assert _sl321(tmp_path, built_libs, requires, "pkgbase") == []


def test_quiet_when_the_provider_names_no_distribution(
    tmp_path: Path, built_libs: dict[str, Path]
) -> None:
    assert _sl321(tmp_path, built_libs, [], None) == []


def _reference_required(requirements: tuple[str, ...], distribution: str, label: str) -> bool:
    """Every requirement parsed by packaging: what SL321 decides, written the long way."""
    from packaging.requirements import InvalidRequirement, Requirement
    from packaging.utils import canonicalize_name

    environments = _environments(label)
    for text in requirements:
        try:
            requirement = Requirement(text)
        except InvalidRequirement:
            continue
        if canonicalize_name(requirement.name) != canonicalize_name(distribution):
            continue
        marker = requirement.marker
        if marker is None or all(marker.evaluate({**env, "extra": ""}) for env in environments):
            return True
    return False


_LEADS = ["", " ", "\t", " \t", "\n"]
_NAMES = [
    "torch", "Torch", "TORCH", "torch_", "torch-", "torch.", "torch__", "torch-.", "torch--",
    "torch-x", "torch_x", "torch.x", "torch.-_X", "torch2", "torchao", "to-rch", "to_rch",
    "tørch", "torché", "_torch", "-torch", "pytorch", "torch-cpu", "Torch_CPU",
]  # fmt: skip
_TAILS = [
    "", ">=1", " >=1", "[cuda]", "[cuda]>=2", " ; python_version >= '3.10'",
    ";sys_platform=='darwin'", " @ https://example.invalid/t.whl", "==2.*", "(>=1)",
    "; extra == 'gpu'", "é", "ü>=1", "!", "; platform_system == 'Linux'",
]  # fmt: skip


def test_requirements_are_judged_as_parsing_every_one_judges_them() -> None:
    texts = [lead + name + tail for lead in _LEADS for name in _NAMES for tail in _TAILS]
    label = TAG
    named = 0
    for wanted in ("torch", "torch-x", "torch-cpu", "to-rch", "TORCH_X"):
        for text in texts:
            expected = _reference_required((text,), wanted, label)
            assert _required((text,), wanted, label) is expected, (text, wanted)
            named += expected
        # Whole lists, in any mix, too.
        for start in range(0, len(texts), 37):
            chunk = tuple(texts[start : start + 37])
            assert _required(chunk, wanted, label) is _reference_required(chunk, wanted, label)
    assert named > 100  # the table holds requirements that do name the distribution


def test_a_wheel_that_names_no_required_distribution_parses_no_requirement() -> None:
    script = (
        "import sys\n"
        "from shiplint.checks.requirements import _required\n"
        "print(_required(('torchao<0.19', 'numpy; python_version >= \"3.10\"', 'pytorch'),"
        f" 'torch', {TAG!r}), 'packaging.requirements' in sys.modules,"
        " 'packaging.markers' in sys.modules)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True, cwd=REPO
    )
    assert done.stdout.split() == ["False", "False", "False"]
