"""Operator registrations on the real ExecuTorch wheels, with the example manifest.

Every figure here is pinned from the wheels themselves (docs/findings/operators.md
explains each finding). The figures that matter most: in 1.5.1 Linux x86_64,
libexecutorch_kernels_quantized.so registers 19 quantized_decomposed operators
into libexecutorch.so's registry, the export plugin none, and nothing collides;
in 1.4.1 the plugin's own 19 registrations are found.
"""

from __future__ import annotations

import functools

import pytest
from shiplint.artifacts.archive import open_artifact
from shiplint.artifacts.inventory import read_inventory
from shiplint.engine import Selection, lint
from shiplint.manifest.load import load_manifest
from shiplint.manifest.model import Manifest
from shiplint.operators.artifact import read_operators
from shiplint.operators.model import LibraryRegistrations, OperatorRegistrations, Status
from shiplint.registry import RULES

from tests.material import EXAMPLE_MANIFEST, wheel

QUANTIZED_OPERATORS = [
    f"quantized_decomposed::{name}"
    for name in (
        "add.out",
        "choose_qparams.Tensor_out",
        "choose_qparams_per_token_asymmetric.out",
        "dequantize_per_channel.out",
        "dequantize_per_tensor.Tensor_out",
        "dequantize_per_tensor.out",
        "dequantize_per_token.out",
        "embedding_2bit.dtype_out",
        "embedding_2bit.out",
        "embedding_4bit.dtype_out",
        "embedding_4bit.out",
        "embedding_byte.dtype_out",
        "embedding_byte.out",
        "mixed_linear.out",
        "mixed_mm.out",
        "quantize_per_channel.out",
        "quantize_per_tensor.Tensor_out",
        "quantize_per_tensor.out",
        "quantize_per_token.out",
    )
]

LINUX_151 = ("1.5.1", "manylinux_2_28_x86_64")
ARM_151 = ("1.5.1", "manylinux_2_28_aarch64")
MAC_151 = ("1.5.1", "macosx_14_0_arm64")
WIN_151 = ("1.5.1", "win_amd64")
LINUX_141 = ("1.4.1", "manylinux_2_28_x86_64")


@functools.cache
def example() -> Manifest:
    return load_manifest(EXAMPLE_MANIFEST)


@functools.cache
def registrations(version: str, platform: str) -> OperatorRegistrations:
    with open_artifact(wheel(version, platform)) as tree:
        [model] = read_operators(tree, read_inventory(tree, example()), example())
    return model


def member(model: OperatorRegistrations, path: str) -> LibraryRegistrations:
    found = model.by_member(path)
    assert found is not None, f"{path} not in {model.artifact}"
    return found


def findings(model: OperatorRegistrations) -> list[tuple[str, str]]:
    return [
        (d.code, d.location.member or "")
        for d in lint(RULES, example(), [model], Selection(select=("SL4",)))
    ]


def summary(model: OperatorRegistrations) -> dict[str, tuple[str, int, str | None]]:
    """Every binary that owns, uses or holds a registry table: status, kernels, owner reached."""
    return {
        lib.member.rsplit("/", 1)[1]: (
            lib.status.value,
            len(lib.operators),
            lib.uses[0].owner.rsplit("/", 1)[1] if lib.uses and lib.uses[0].owner else None,
        )
        for lib in model.libraries
        if lib.status is not Status.NONE or lib.owns
    }


@pytest.mark.parametrize(
    "material, library_dir, suffix",
    [(LINUX_151, "lib", "so"), (ARM_151, "lib", "so"), (MAC_151, "lib", "dylib")],
)
def test_quantized_kernels_register_19_operators_into_the_runtime(
    material: tuple[str, str], library_dir: str, suffix: str
) -> None:
    model = registrations(*material)
    quantized = member(model, f"executorch/{library_dir}/libexecutorch_kernels_quantized.{suffix}")
    assert quantized.status is Status.TABLES
    assert quantized.library == "executorch_kernels_quantized"
    assert list(quantized.operator_names()) == QUANTIZED_OPERATORS
    assert len(quantized.operators) == 19  # one kernel each, no kernel keys
    assert [(u.registry, u.owner) for u in quantized.uses] == [
        ("executorch-operators", f"executorch/lib/libexecutorch.{suffix}")
    ]
    plugin = member(model, f"executorch/kernels/quantized/libquantized_ops_aot_lib.{suffix}")
    # 1.5.1's plugin resolves the kernels from the shared library (DT_NEEDED):
    # it references no registry and registers nothing itself.
    assert (plugin.status, plugin.operators, plugin.uses) == (Status.NONE, (), ())
    assert f"executorch/lib/libexecutorch_kernels_quantized.{suffix}" in plugin.closure


@pytest.mark.parametrize("material", [LINUX_151, ARM_151])
def test_linux_151(material: tuple[str, str]) -> None:
    model = registrations(*material)
    assert summary(model) == {
        "libexecutorch.so": ("tables", 28, "libexecutorch.so"),
        "libexecutorch_kernels_optimized.so": ("tables", 212, "libexecutorch.so"),
        "libexecutorch_kernels_quantized.so": ("tables", 19, "libexecutorch.so"),
        "libcustom_ops_aot_lib.so": ("not-determined", 0, "libexecutorch.so"),
    }
    # No collision: the only SL4 finding is the LLM custom-ops plugin, which
    # registers through EXECUTORCH_LIBRARY (code), so its names are unknown.
    assert findings(model) == [
        ("SL405", "executorch/extension/llm/custom_ops/libcustom_ops_aot_lib.so")
    ]


def test_macos_151() -> None:
    model = registrations(*MAC_151)
    assert summary(model) == {
        "libexecutorch.dylib": ("tables", 28, "libexecutorch.dylib"),
        "libexecutorch_kernels_optimized.dylib": ("tables", 212, "libexecutorch.dylib"),
        "libexecutorch_kernels_quantized.dylib": ("tables", 19, "libexecutorch.dylib"),
        "libexecutorch_kernels_torchao.dylib": ("not-determined", 0, "libexecutorch.dylib"),
        "libcustom_ops_aot_lib.dylib": ("not-determined", 0, "libexecutorch.dylib"),
    }
    assert findings(model) == [
        ("SL405", "executorch/extension/llm/custom_ops/libcustom_ops_aot_lib.dylib"),
        ("SL405", "executorch/lib/libexecutorch_kernels_torchao.dylib"),
    ]


def test_windows_151_tables_without_a_visible_registry() -> None:
    # MSVC exports nothing by default: every registry is a private static copy,
    # so the tables are read but the registry they go to is not determined.
    model = registrations(*WIN_151)
    assert summary(model) == {
        "selective_build.cp311-win_amd64.pyd": ("not-determined", 28, None),
        "_C.cp311-win_amd64.pyd": ("not-determined", 240, None),
        "data_loader.cp311-win_amd64.pyd": ("not-determined", 28, None),
        "quantized_ops_aot_lib.dll": ("not-determined", 19, None),
    }
    plugin = member(model, "executorch/kernels/quantized/quantized_ops_aot_lib.dll")
    assert list(plugin.operator_names()) == QUANTIZED_OPERATORS
    assert findings(model) == [
        ("SL405", "executorch/codegen/tools/selective_build.cp311-win_amd64.pyd"),
        ("SL405", "executorch/extension/pybindings/_C.cp311-win_amd64.pyd"),
        ("SL405", "executorch/extension/pybindings/data_loader.cp311-win_amd64.pyd"),
        # The Windows plugin carries its own copy of the quantized kernels.
        ("SL402", "executorch/kernels/quantized/quantized_ops_aot_lib.dll"),
        ("SL405", "executorch/kernels/quantized/quantized_ops_aot_lib.dll"),
    ]


def test_141_plugin_registers_its_own_quantized_kernels() -> None:
    model = registrations(*LINUX_141)
    plugin = member(model, "executorch/kernels/quantized/libquantized_ops_aot_lib.so")
    assert plugin.status is Status.TABLES
    assert list(plugin.operator_names()) == QUANTIZED_OPERATORS
    portable = "executorch/extension/pybindings/_portable_lib.cpython-311-x86_64-linux-gnu.so"
    assert [(u.registry, u.owner) for u in plugin.uses] == [("executorch-operators", portable)]
    assert summary(model) == {
        "PyQnnManagerAdaptor.cpython-311-x86_64-linux-gnu.so": (
            "tables",
            28,
            "PyQnnManagerAdaptor.cpython-311-x86_64-linux-gnu.so",
        ),
        "selective_build.cpython-311-x86_64-linux-gnu.so": (
            "tables",
            28,
            "selective_build.cpython-311-x86_64-linux-gnu.so",
        ),
        "libcustom_ops_aot_lib.so": (
            "not-determined",
            0,
            "_portable_lib.cpython-311-x86_64-linux-gnu.so",
        ),
        "_portable_lib.cpython-311-x86_64-linux-gnu.so": (
            "tables",
            240,
            "_portable_lib.cpython-311-x86_64-linux-gnu.so",
        ),
        "data_loader.cpython-311-x86_64-linux-gnu.so": (
            "tables",
            28,
            "data_loader.cpython-311-x86_64-linux-gnu.so",
        ),
        "_training_lib.cpython-311-x86_64-linux-gnu.so": (
            "tables",
            28,
            "_training_lib.cpython-311-x86_64-linux-gnu.so",
        ),
        "libquantized_ops_aot_lib.so": (
            "tables",
            19,
            "_portable_lib.cpython-311-x86_64-linux-gnu.so",
        ),
    }
    assert findings(model) == [
        (
            "SL404",
            "executorch/backends/qualcomm/python/PyQnnManagerAdaptor.cpython-311-x86_64-linux-gnu.so",
        ),
        ("SL404", "executorch/codegen/tools/selective_build.cpython-311-x86_64-linux-gnu.so"),
        ("SL405", "executorch/extension/llm/custom_ops/libcustom_ops_aot_lib.so"),
        ("SL404", portable),
        ("SL404", "executorch/extension/pybindings/data_loader.cpython-311-x86_64-linux-gnu.so"),
        (
            "SL404",
            "executorch/extension/training/pybindings/_training_lib.cpython-311-x86_64-linux-gnu.so",
        ),
        # The 1.5.1 contract gives quantized_decomposed to the quantized kernels library.
        ("SL402", "executorch/kernels/quantized/libquantized_ops_aot_lib.so"),
    ]
