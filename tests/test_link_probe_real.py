"""The link probe on the real ExecuTorch 1.5.1 wheels, with real g++ and CMake 3.24.3 + 4.4.5.

What the probe exists to show: a consumer naming kernels_quantized keeps
libexecutorch_kernels_quantized.so; a consumer of EXECUTORCH_LIBRARIES depends on
the CPU kernels and not on the quantized ones, on both routes. Everything else the
probe reports is pinned in tests/golden/link_probe/ and explained in
docs/findings/link_probe.md. Set SHIPLINT_UPDATE_GOLDEN=1 to rewrite the golden file.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import pytest
from shiplint.artifacts.archive import open_artifact
from shiplint.artifacts.inventory import read_inventory
from shiplint.diagnostics import Diagnostic
from shiplint.engine import Selection, lint
from shiplint.manifest.load import load_manifest
from shiplint.manifest.model import Manifest
from shiplint.probes.link.model import ConsumerBuild
from shiplint.probes.link.probe import ProbeOptions, probe_artifact
from shiplint.registry import RULES

from tests.link_probe_support import render, strip_retention
from tests.material import (
    EXAMPLE_MANIFEST,
    NEW_CMAKE_VERSION,
    OLD_CMAKE_VERSION,
    REPO,
    cmake,
    wheel,
)

GOLDEN = REPO / "tests" / "golden" / "link_probe" / "executorch-1.5.1-manylinux_2_28_x86_64.txt"
QUANTIZED = "libexecutorch_kernels_quantized.so"
OPTIMIZED = "libexecutorch_kernels_optimized.so"
VERSIONS = (OLD_CMAKE_VERSION, NEW_CMAKE_VERSION)
# The shipped libraries the example manifest marks registers_statically.
REGISTRATION_ONLY = {
    "kernels_optimized",
    "kernels_quantized",
    "backend_xnnpack",
    "backend_openvino",
    "backend_qnn",
}


@pytest.fixture(scope="session")
def example() -> Manifest:
    return load_manifest(EXAMPLE_MANIFEST, "examples/executorch/shiplint.yaml")


@pytest.fixture(scope="session")
def options() -> ProbeOptions:
    return ProbeOptions(cmake=tuple(str(cmake(v)) for v in VERSIONS))


def probe(artifact: Path, manifest: Manifest, options: ProbeOptions) -> list[object]:
    with open_artifact(artifact) as tree:
        return list(probe_artifact(tree, read_inventory(tree, manifest), manifest, options))


def diagnose(models: Sequence[object], manifest: Manifest) -> list[Diagnostic]:
    return lint(RULES, manifest, models, Selection(select=("SL5",)))


def needed(models: list[object]) -> dict[tuple[str, str], tuple[str, ...]]:
    return {
        (m.context.cmake_version, m.consumer.key): m.needed
        for m in models
        if isinstance(m, ConsumerBuild)
    }


@pytest.fixture(scope="session")
def linux_x86_64(example: Manifest, options: ProbeOptions) -> list[object]:
    return probe(wheel("1.5.1", "manylinux_2_28_x86_64"), example, options)


def test_the_named_quantized_kernels_stay_on_the_link_line(linux_x86_64: list[object]) -> None:
    found = needed(linux_x86_64)
    assert QUANTIZED in found[(NEW_CMAKE_VERSION, "target:kernels_quantized")]
    # The old route has no targets; the documented variable is how a consumer names it.
    for version in VERSIONS:
        assert QUANTIZED in found[(version, "variable:EXECUTORCH_QUANTIZED_KERNELS_LIBRARY")]


@pytest.mark.parametrize("version", VERSIONS)
def test_the_aggregate_carries_the_cpu_kernels_and_not_the_quantized(
    linux_x86_64: list[object], version: str
) -> None:
    aggregate = needed(linux_x86_64)[(version, "aggregate:EXECUTORCH_LIBRARIES")]
    assert OPTIMIZED in aggregate
    assert QUANTIZED not in aggregate


def registered(models: list[object], namespace: str) -> dict[tuple[str, str], int | None]:
    """Distinct operator names of `namespace` each consumer's run listed (None: not listed)."""
    return {
        (m.context.cmake_version, m.consumer.key): None
        if m.registered is None
        else len({n for n in m.registered if n.startswith(f"{namespace}::")})
        for m in models
        if isinstance(m, ConsumerBuild)
    }


def test_only_the_consumers_naming_the_quantized_kernels_see_their_19_operators(
    linux_x86_64: list[object],
) -> None:
    seen = registered(linux_x86_64, "quantized_decomposed")
    asking = {"target:kernels_quantized", "variable:EXECUTORCH_QUANTIZED_KERNELS_LIBRARY"}
    for (version, key), count in seen.items():
        if version == OLD_CMAKE_VERSION:
            assert count is None  # no imported target to compile the listing with
        else:
            assert count == (19 if key in asking else 0), key
    assert seen[(NEW_CMAKE_VERSION, "aggregate:EXECUTORCH_LIBRARIES")] == 0


def test_consumers_run_deployed_on_the_targets_route_only(linux_x86_64: list[object]) -> None:
    for model in linux_x86_64:
        if not isinstance(model, ConsumerBuild):
            continue
        sites = {run.site.value: run.ok for run in model.runs}
        if model.context.cmake_version == NEW_CMAKE_VERSION:
            assert sites == {"in place": True, "deployed": True}, model.consumer.key
            assert model.runpath[:2] == ("$ORIGIN", "$ORIGIN/../lib")
        elif model.consumer.kind.value == "aggregate":
            assert sites == {"in place": True, "deployed": False}
        else:
            # The wrapped path of the quantized kernels records no run path at all.
            assert sites == {"in place": False}
            assert model.runpath == ()


def golden_text(models: list[object], diagnostics: list[Diagnostic]) -> str:
    lines = ["# diagnostics (--select SL5)", *render(diagnostics), "", "# consumers: NEEDED"]
    for (version, key), entries in sorted(needed(models).items()):
        lines.append(f"{version} {key}: {', '.join(entries)}")
    lines += ["", "# consumers: runs (in place, deployed) and RUNPATH"]
    for model in sorted(
        (m for m in models if isinstance(m, ConsumerBuild)),
        key=lambda m: (m.context.cmake_version, m.consumer.key),
    ):
        runs = ", ".join(f"{r.site.value}: {r.reason or 'ok'}" for r in model.runs)
        runpath = ":".join(model.runpath)
        lines.append(f"{model.context.cmake_version} {model.consumer.key}: {runs}; [{runpath}]")
    lines += ["", "# consumers: distinct registered operators per namespace"]
    for model in sorted(
        (m for m in models if isinstance(m, ConsumerBuild) and m.registered is not None),
        key=lambda m: (m.context.cmake_version, m.consumer.key),
    ):
        spaces = Counter(n.split("::", 1)[0] for n in set(model.registered or ()))
        counts = ", ".join(f"{space} {count}" for space, count in sorted(spaces.items()))
        lines.append(f"{model.context.cmake_version} {model.consumer.key}: {counts}")
    return "\n".join(lines) + "\n"


def test_everything_else_is_pinned(linux_x86_64: list[object], example: Manifest) -> None:
    text = golden_text(linux_x86_64, diagnose(linux_x86_64, example))
    if os.environ.get("SHIPLINT_UPDATE_GOLDEN"):
        GOLDEN.parent.mkdir(parents=True, exist_ok=True)
        GOLDEN.write_text(text, encoding="utf-8")
    assert text == GOLDEN.read_text(encoding="utf-8")


def _stripped_copy(dest: Path) -> Path:
    """The wheel's package as an install tree, every config copy without retention."""
    with open_artifact(wheel("1.5.1", "manylinux_2_28_x86_64")) as tree:
        for name in tree.names():
            keep = name.startswith(("executorch/lib/", "executorch/share/", "executorch/include/"))
            if not keep:
                continue
            data = tree.read(name)
            if name.endswith("executorch-config.cmake"):
                data = strip_retention(data.decode("utf-8")).encode("utf-8")
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            (dest / name).write_bytes(data)
    return dest


def test_removing_retention_is_reported_for_every_registration_only_component(
    tmp_path: Path, example: Manifest, options: ProbeOptions
) -> None:
    artifact = _stripped_copy(tmp_path / "executorch-1.5.1-stripped")
    # Only the consumers that can show a drop: the registration-only targets, the
    # component variable and the aggregate (keeps this test to a few seconds).
    only = frozenset(
        {f"target:{c}" for c in REGISTRATION_ONLY}
        | {"variable:EXECUTORCH_QUANTIZED_KERNELS_LIBRARY", "aggregate:EXECUTORCH_LIBRARIES"}
    )
    models = probe(artifact, example, replace(options, only=only))
    diagnostics = diagnose(models, example)
    registration_only = {
        c
        for lib in example.libraries
        if lib.registers_statically and (artifact / "executorch/lib" / f"lib{lib.name}.so").exists()
        for c in lib.owns.components
    }
    assert registration_only == REGISTRATION_ONLY
    for version in VERSIONS:
        reported = {
            d.subject.component
            for d in diagnostics
            if d.code in ("SL501", "SL503") and d.subject.cmake_version == version
        }
        assert reported == registration_only, version
    dropped_by_name = {
        d.subject.component
        for d in diagnostics
        if d.code == "SL501" and d.subject.cmake_version == NEW_CMAKE_VERSION
    }
    assert dropped_by_name == registration_only
    assert not [d for d in diagnostics if d.code in ("SL502", "SL504", "SL505")]


@pytest.mark.parametrize(
    ("platform", "expected"),
    [
        ("manylinux_2_28_aarch64", "linux-aarch64"),
        ("macosx_14_0_arm64", "macos-aarch64"),
        ("win_amd64", "windows-x86_64"),
    ],
)
def test_other_platforms_are_said_not_probed(
    example: Manifest, options: ProbeOptions, platform: str, expected: str
) -> None:
    (diag,) = diagnose(probe(wheel("1.5.1", platform), example, options), example)
    assert (diag.code, diag.severity.value) == ("SL506", "info")
    assert f"the artifact is for {expected}" in diag.message


def test_a_wheel_without_a_shared_runtime_is_said_not_probed(
    example: Manifest, options: ProbeOptions
) -> None:
    # 1.4.1 ships a monolithic Python extension and no linkable runtime (domain.md).
    (diag,) = diagnose(probe(wheel("1.4.1", "manylinux_2_28_x86_64"), example, options), example)
    assert (diag.code, diag.severity.value) == ("SL506", "info")
    assert "nothing-to-link" in diag.message
    assert diag.location.member == "executorch/share/cmake/executorch-config.cmake"
