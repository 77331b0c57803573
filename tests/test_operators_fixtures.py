"""Operator registrations read from tiny real C++ libraries built by g++ in this session.

The sources in tests/fixtures/opreg imitate ExecuTorch's pattern: a registry
library defining `executorch::runtime::register_kernels`, kernel libraries whose
static initializers register generated tables of `Kernel` records, one library
registering through code, one carrying its own copy of the registry. alpha and
beta both register `shared::relu.out`: loading both really aborts (asserted below).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from shiplint.artifacts.archive import open_artifact
from shiplint.artifacts.inventory import read_inventory
from shiplint.artifacts.reading.lief_reader import read_relocated_pointers
from shiplint.engine import lint
from shiplint.manifest.model import LibraryKind, Manifest, Ownership, Registry
from shiplint.operators.artifact import read_operators
from shiplint.operators.model import OperatorRegistrations, RegisteredOperator, Status
from shiplint.operators.tables import kernel_records
from shiplint.registry import RULES

from tests.builders import library, manifest

SOURCES = Path(__file__).parent / "fixtures" / "opreg"
FLAGS = ["-std=c++17", "-O2", "-fPIC", "-shared"]
REGISTRY = Registry("opreg", ("executorch::runtime::register_kernels",))


def _gxx(out: Path, sources: list[str], *extra: str) -> Path:
    subprocess.run(
        ["g++", *FLAGS, "-o", str(out), *(str(SOURCES / s) for s in sources), *extra],
        check=True,
        capture_output=True,
    )
    return out


@pytest.fixture(scope="session")
def libs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    if shutil.which("g++") is None:
        pytest.fail("g++ is required to build the operator registration fixtures")
    out = tmp_path_factory.mktemp("opreg")
    built = {
        "runtime": _gxx(
            out / "libopreg_runtime.so", ["registry.cpp"], "-Wl,-soname,libopreg_runtime.so"
        )
    }
    linked = ["-L", str(out), "-lopreg_runtime", "-Wl,-rpath,$ORIGIN"]
    for name in ("alpha", "beta", "code"):
        built[name] = _gxx(
            out / f"libopreg_{name}.so",
            [f"kernels_{name}.cpp"],
            f"-Wl,-soname,libopreg_{name}.so",
            *linked,
        )
    # The registry compiled in: a second registry of its own.
    built["copy"] = _gxx(out / "libopreg_copy.so", ["kernels_copy.cpp", "registry.cpp"])
    # Imports register_kernels but has no NEEDED entry that defines it.
    built["orphan"] = _gxx(out / "libopreg_orphan.so", ["kernels_beta.cpp"])
    # alpha again with packed relative relocations (DT_RELR): addends live in the slots.
    (out / "relr").mkdir()
    built["relr"] = _gxx(
        out / "relr" / "libopreg_alpha.so",
        ["kernels_alpha.cpp"],
        "-Wl,-z,pack-relative-relocs",
        *linked,
    )
    return built


def _tree(root: Path, libs: dict[str, Path], names: tuple[str, ...]) -> Path:
    places = {"copy": "pkg/ext"}
    for name in names:
        directory = root / places.get(name, "pkg/lib")
        directory.mkdir(parents=True, exist_ok=True)
        shutil.copy(libs[name], directory / libs[name].name)
    return root


def opreg_manifest() -> Manifest:
    libraries = (
        library("opreg_runtime", LibraryKind.RUNTIME, owns=Ownership(symbols=REGISTRY.symbols)),
        library(
            "opreg_alpha", owns=Ownership(operator_namespaces=("alpha", "shared"), operator_count=4)
        ),
        library("opreg_beta", owns=Ownership(operator_namespaces=("beta",))),
        library("opreg_code"),
        library("opreg_copy", directory="pkg/ext"),
    )
    return manifest(libraries, registries=(REGISTRY,))


def _model(tree: Path) -> OperatorRegistrations:
    with open_artifact(tree) as artifact:
        [model] = read_operators(
            artifact, read_inventory(artifact, opreg_manifest()), opreg_manifest()
        )
    return model


@pytest.fixture(scope="session")
def colliding(
    libs: dict[str, Path], tmp_path_factory: pytest.TempPathFactory
) -> OperatorRegistrations:
    names = ("runtime", "alpha", "beta", "code", "copy", "orphan")
    return _model(_tree(tmp_path_factory.mktemp("colliding"), libs, names))


def test_tables_are_read_with_keys_and_owner(colliding: OperatorRegistrations) -> None:
    alpha = colliding.by_member("pkg/lib/libopreg_alpha.so")
    assert alpha is not None and alpha.status is Status.TABLES and alpha.library == "opreg_alpha"
    assert sorted(alpha.operators, key=RegisteredOperator.sort_key) == [
        RegisteredOperator("alpha::add.out"),
        RegisteredOperator("alpha::cast.out", "v1/3;0,1|3;0,1"),
        RegisteredOperator("alpha::cast.out", "v1/6;0,1|6;0,1"),
        RegisteredOperator("alpha::mul.out"),
        RegisteredOperator("shared::relu.out"),
    ]
    assert [(u.registry, u.owner) for u in alpha.uses] == [("opreg", "pkg/lib/libopreg_runtime.so")]
    assert alpha.closure == ("pkg/lib/libopreg_runtime.so",)


def test_statuses_of_every_library(colliding: OperatorRegistrations) -> None:
    summary = {
        lib.file_name: (lib.status, lib.owns, tuple(u.owner for u in lib.uses), len(lib.operators))
        for lib in colliding.libraries
    }
    runtime = "pkg/lib/libopreg_runtime.so"
    assert summary == {
        "libopreg_runtime.so": (Status.NONE, ("opreg",), (runtime,), 0),
        "libopreg_alpha.so": (Status.TABLES, (), (runtime,), 5),
        "libopreg_beta.so": (Status.TABLES, (), (runtime,), 2),
        "libopreg_code.so": (Status.NOT_DETERMINED, (), (runtime,), 0),
        "libopreg_copy.so": (Status.TABLES, ("opreg",), ("pkg/ext/libopreg_copy.so",), 1),
        "libopreg_orphan.so": (Status.TABLES, (), (None,), 2),
    }


def test_the_colliding_fixture_is_reported(colliding: OperatorRegistrations) -> None:
    diagnostics = lint(RULES, opreg_manifest(), [colliding])
    found = [
        (d.code, d.location.member, d.subject.library, d.subject.operator) for d in diagnostics
    ]
    # In the engine's order: by location, then code.
    assert found == [
        ("SL404", "pkg/ext/libopreg_copy.so", "opreg_copy", None),
        ("SL401", "pkg/lib/libopreg_beta.so", "opreg_beta", "shared::relu.out"),
        ("SL402", "pkg/lib/libopreg_beta.so", "opreg_beta", "shared::*"),
        ("SL403", "pkg/lib/libopreg_beta.so", "opreg_beta", None),
        ("SL405", "pkg/lib/libopreg_code.so", "opreg_code", None),
        ("SL402", "pkg/lib/libopreg_orphan.so", "libopreg_orphan.so", "beta::*"),
        ("SL402", "pkg/lib/libopreg_orphan.so", "libopreg_orphan.so", "shared::*"),
        ("SL406", "pkg/lib/libopreg_orphan.so", "libopreg_orphan.so", None),
    ]
    collision = next(d for d in diagnostics if d.code == "SL401")
    assert collision.message == (
        "libopreg_beta.so and libopreg_alpha.so both register shared::relu.out into the "
        "operator registry of libopreg_runtime.so; a process that loads both aborts with "
        "'Re-registering shared::relu.out'"
    )


def _load(*libraries: Path) -> subprocess.CompletedProcess[str]:
    script = "import ctypes, sys\nfor path in sys.argv[1:]:\n    ctypes.CDLL(path)\n"
    return subprocess.run(
        [sys.executable, "-c", script, *map(str, libraries)],
        capture_output=True,
        text=True,
        check=False,
    )


def test_the_reported_collision_really_aborts(libs: dict[str, Path]) -> None:
    both = _load(libs["alpha"], libs["beta"])
    assert both.returncode != 0 and "Re-registering shared::relu.out" in both.stderr
    # Everything not reported as colliding loads together.
    apart = _load(libs["alpha"], libs["code"], libs["copy"])
    assert apart.returncode == 0, apart.stderr


def test_a_package_without_the_colliding_library_is_quiet(
    libs: dict[str, Path], tmp_path: Path
) -> None:
    model = _model(_tree(tmp_path, libs, ("runtime", "alpha", "code")))
    codes = [d.code for d in lint(RULES, opreg_manifest(), [model])]
    assert codes == ["SL405"]  # only the code-registered library, as not determined


def test_names_come_from_the_table_not_from_strings(libs: dict[str, Path]) -> None:
    data = libs["alpha"].read_bytes()
    # The linker merged "alpha::mul.out" into the tail of the error message:
    # no standalone string exists for `strings` to find...
    assert b"\0alpha::mul.out\0" not in data
    assert b"failed to run alpha::mul.out\0" in data
    names = [op.name for op in kernel_records(read_relocated_pointers(data))]
    # ...yet the table's pointer reads it, and the message is not counted again.
    assert names.count("alpha::mul.out") == 1


def test_packed_relative_relocations_read_the_same(libs: dict[str, Path]) -> None:
    packed = libs["relr"].read_bytes()
    assert b".relr.dyn" in packed
    assert sorted(
        kernel_records(read_relocated_pointers(packed)), key=RegisteredOperator.sort_key
    ) == sorted(
        kernel_records(read_relocated_pointers(libs["alpha"].read_bytes())),
        key=RegisteredOperator.sort_key,
    )


def test_no_registries_in_the_manifest_reads_nothing(libs: dict[str, Path], tmp_path: Path) -> None:
    tree = _tree(tmp_path, libs, ("runtime", "alpha"))
    with open_artifact(tree) as artifact:
        without = manifest(opreg_manifest().libraries)
        assert read_operators(artifact, read_inventory(artifact, without), without) == []


@pytest.mark.parametrize(
    "data, reason",
    [
        (b"", "not an ELF, Mach-O or PE binary"),
        (b"\x7fELF" + b"\0" * 20, "truncated"),
        (b"\xcf\xfa\xed\xfe" + b"\0" * 20, "Mach-O"),
    ],
)
def test_unreadable_input_is_a_reason_not_a_crash(data: bytes, reason: str) -> None:
    pointers = read_relocated_pointers(data)
    assert pointers.unreadable is not None and reason in pointers.unreadable
    assert pointers.slots == ()


def test_the_artifact_model_the_binary_area_built_is_used_as_given(
    libs: dict[str, Path], tmp_path: Path
) -> None:
    from dataclasses import replace

    from shiplint.artifacts.linkage import link_graph

    tree = _tree(tmp_path, libs, ("runtime", "alpha", "beta"))
    with open_artifact(tree) as artifact:
        full = read_inventory(artifact, opreg_manifest())
        kept = tuple(b for b in full.binaries if "beta" not in b.name)
        links = link_graph(full.listing, kept, opreg_manifest().externals)
        partial = replace(full, binaries=kept, links=links)
        [model] = read_operators(artifact, partial, opreg_manifest())
    # beta is in the tree but not among the binaries handed over: not read again.
    assert [lib.member for lib in model.libraries] == [
        "pkg/lib/libopreg_alpha.so",
        "pkg/lib/libopreg_runtime.so",
    ]
