"""One inventory per artifact, read by every area: an unpacked macOS wheel is macOS to all.

A directory has no wheel tag, so its platform comes from its binaries' headers,
never from the host: the artifact rules, the config evaluation, the operator area
and the link probe all read that one answer from the inventory.
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest
from shiplint.artifacts.model import ArtifactKind, Inventory
from shiplint.cli import main
from shiplint.cmake_eval.model import ConfigEvaluation
from shiplint.manifest.load import load_manifest
from shiplint.operators.model import OperatorRegistrations
from shiplint.pipeline import collect_models
from shiplint.platforms import Platform
from shiplint.probes.link.model import NotProbed, NotProbedReason
from shiplint.registry import RULES
from shiplint.request import QUIET, RunRequest

from tests.material import EXAMPLE_MANIFEST, NEW_CMAKE_VERSION, REPO, cmake, wheel

MACOS = Platform("macos", "aarch64")


@pytest.fixture(scope="module")
def unpacked_macos(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The real macOS 1.5.1 wheel unpacked into a directory, as `pip install --target` would."""
    root = tmp_path_factory.mktemp("unpacked") / "executorch-1.5.1-macos"
    with zipfile.ZipFile(wheel("1.5.1", "macosx_14_0_arm64")) as archive:
        archive.extractall(root)
    return root


def test_every_area_reads_macos_from_an_unpacked_macos_wheel(unpacked_macos: Path) -> None:
    request = RunRequest(
        root=REPO,
        check_sources=False,
        artifacts=(unpacked_macos,),
        cmake=(str(cmake(NEW_CMAKE_VERSION)),),
        link_probe=True,
    )
    models = collect_models(request, load_manifest(EXAMPLE_MANIFEST), RULES, QUIET)

    (inventory,) = [m for m in models if isinstance(m, Inventory)]
    assert (inventory.kind, inventory.platform, inventory.platform_source) == (
        ArtifactKind.DIRECTORY,
        MACOS,
        "binaries",
    )
    # The config is evaluated as macOS, so it sees the shipped dylibs as the libraries.
    (evaluation,) = [m for m in models if isinstance(m, ConfigEvaluation)]
    assert evaluation.platform == MACOS
    assert "executorch/lib/libexecutorch.dylib" in {s.member for s in evaluation.shipped}
    (operators,) = [m for m in models if isinstance(m, OperatorRegistrations)]
    assert operators.platform == MACOS
    # The link probe, on this Linux host, says the artifact is for another platform; it
    # used to take the host's platform and report that nothing for Linux was shipped.
    (not_probed,) = [m for m in models if isinstance(m, NotProbed)]
    assert not_probed.reason is NotProbedReason.OTHER_PLATFORM
    assert "the artifact is for macos-aarch64" in not_probed.detail


def test_the_unpacked_wheel_reports_what_the_wheel_reports(
    unpacked_macos: Path, tmp_path: Path
) -> None:
    """Through main(): the artifact and operator findings of the tree are the wheel's,
    code for code and file for file."""

    def findings(artifact: Path) -> tuple[int, set[tuple[str, str]]]:
        output = tmp_path / f"{artifact.name}.json"
        argv = ["check", "--no-sources", "--manifest", str(EXAMPLE_MANIFEST), "--root", str(REPO)]
        # SL321 reads a wheel's METADATA, which an unpacked tree does not keep beside it.
        argv += ["--select", "SL3,SL4", "--ignore", "SL321", "--format", "json"]
        argv += ["--output", str(output)]
        code = main([*argv, str(artifact)])
        report = json.loads(output.read_text(encoding="utf-8"))
        return code, {(d["code"], d["location"].get("member")) for d in report["diagnostics"]}

    code, from_tree = findings(unpacked_macos)
    assert (code, from_tree) == findings(wheel("1.5.1", "macosx_14_0_arm64"))
    assert ("SL307", "executorch/lib/libexecutorch_kernels_quantized.dylib") in from_tree


def test_a_tree_without_binaries_has_no_platform(tmp_path: Path) -> None:
    """Placeholder files name no platform, and the host is never taken for one."""
    from shiplint.artifacts.archive import open_artifact
    from shiplint.artifacts.inventory import list_artifact

    (tmp_path / "pkg" / "lib").mkdir(parents=True)
    (tmp_path / "pkg" / "lib" / "libpkg.so").write_bytes(b"")
    (tmp_path / "pkg" / "lib" / "libpkg.dylib").write_bytes(b"not a binary")
    with open_artifact(tmp_path) as tree:
        listing = list_artifact(tree, load_manifest(EXAMPLE_MANIFEST))
    assert (listing.platform, listing.platform_source, listing.libraries) == (None, "unknown", ())


def test_a_tree_is_for_the_platform_most_of_its_binaries_say(tmp_path: Path) -> None:
    from shiplint.artifacts.archive import open_artifact
    from shiplint.artifacts.inventory import list_artifact

    linux = zipfile.ZipFile(wheel("1.5.1", "manylinux_2_28_aarch64"))
    windows = zipfile.ZipFile(wheel("1.5.1", "win_amd64"))
    (tmp_path / "lib").mkdir()
    for index, name in enumerate(("_C", "_llm_runner")):
        member = next(n for n in linux.namelist() if f"/{name}.cpython" in n)
        (tmp_path / "lib" / f"a{index}.so").write_bytes(linux.read(member))
    dll = next(n for n in windows.namelist() if n.endswith(".dll"))
    (tmp_path / "lib" / "one.dll").write_bytes(windows.read(dll))
    with open_artifact(tmp_path) as tree:
        listing = list_artifact(tree, load_manifest(EXAMPLE_MANIFEST))
    assert (listing.platform, listing.platform_source) == (Platform("linux", "aarch64"), "binaries")
