"""SL320 and SL323 follow the ELF loader: the whole load scope, default-version binding,
what glibc defines under the wheel's tag, and the interpreter's names in Python.

Each fixture is a real library (`tests.load_scope_libs`); each test asks the real
loader too (dlopen with RTLD_NOW in a fresh Python process, `ldd -r`), so a finding
and the loader's answer are checked side by side.
"""

from __future__ import annotations

import zipfile
from dataclasses import replace
from pathlib import Path

from shiplint.artifacts.archive import open_artifact
from shiplint.artifacts.inventory import read_inventory
from shiplint.diagnostics import Diagnostic
from shiplint.engine import Selection, lint
from shiplint.manifest.load import load_manifest
from shiplint.manifest.model import Externals, LibraryKind, Manifest, Placement
from shiplint.platforms import PlatformSelector
from shiplint.registry import RULES

from tests.artifact_libs import pack_wheel
from tests.builders import library, manifest
from tests.load_scope_libs import dlopen_now, ldd_r, scope_libs
from tests.material import EXAMPLE_MANIFEST, wheel

__all__ = ["scope_libs"]

SYSTEM = Externals(policies=("platform-tag",))
OLD_GLIBC = "pkg-1.0-cp311-cp311-manylinux_2_28_x86_64.whl"
NEW_GLIBC = "pkg-1.0-cp311-cp311-manylinux_2_34_x86_64.whl"


def _lint(
    tmp_path: Path,
    libs: dict[str, Path],
    names: tuple[str, ...],
    tag: str = OLD_GLIBC,
    mf: Manifest | None = None,
) -> list[Diagnostic]:
    path = pack_wheel(tmp_path / tag, {f"pkg/lib/{n}": libs[n] for n in names})
    mf = mf or manifest(libraries=(library("a"),), externals=SYSTEM)
    with open_artifact(path) as tree:
        model = read_inventory(tree, mf)
    return lint(RULES, mf, [model], Selection(select=("SL320", "SL323")))


def _by(diagnostics: list[Diagnostic], member: str) -> list[tuple[str, str]]:
    return [(d.code, d.message) for d in diagnostics if d.location.member == f"pkg/lib/{member}"]


# ---------------------------------------------------------------- the load scope


def test_a_name_from_a_dependencys_dependency_loads_and_is_underlinking(
    tmp_path: Path, scope_libs: dict[str, Path]
) -> None:
    # liba calls foo (unversioned) and NEEDs libb alone; libb NEEDs libfoo (foo@@V1).
    assert dlopen_now(scope_libs["liba.so"]).returncode == 0
    assert "undefined symbol" not in ldd_r(scope_libs["liba.so"])
    found = _by(_lint(tmp_path, scope_libs, ("liba.so", "libb.so", "libfoo.so")), "liba.so")
    assert [code for code, _ in found] == ["SL323"]
    assert "1 undefined symbol only in libraries its dependencies NEED" in found[0][1]
    assert "foo in libfoo.so (loaded through libb.so)" in found[0][1]


def test_quiet_when_the_library_needs_the_definer_itself(
    tmp_path: Path, scope_libs: dict[str, Path]
) -> None:
    assert dlopen_now(scope_libs["liba_linked.so"]).returncode == 0
    names = ("liba_linked.so", "libb.so", "libfoo.so")
    assert _lint(tmp_path, scope_libs, names) == []


def test_a_name_nothing_in_the_scope_defines_is_unresolved(
    tmp_path: Path, scope_libs: dict[str, Path]
) -> None:
    loaded = dlopen_now(scope_libs["liba_bar.so"])
    assert loaded.returncode != 0 and "undefined symbol: bar" in loaded.stderr
    assert "undefined symbol: bar" in ldd_r(scope_libs["liba_bar.so"])
    found = _by(_lint(tmp_path, scope_libs, ("liba_bar.so", "libb.so", "libfoo.so")), "liba_bar.so")
    assert [code for code, _ in found] == ["SL320"]
    assert "unresolved when it loads: bar;" in found[0][1]


# ---------------------------------------------------------------- glibc under the tag


def test_pthread_from_a_dependencys_libpthread_on_manylinux_2_28(
    tmp_path: Path, scope_libs: dict[str, Path]
) -> None:
    # As libexecutorch_kernels_optimized.so: pthread_create unversioned, NEEDs a library
    # that NEEDs libpthread.so.0. Before glibc 2.34 only libpthread defines it.
    assert dlopen_now(scope_libs["libuses_threads.so"]).returncode == 0
    names = ("libuses_threads.so", "libthreads.so")
    found = _by(_lint(tmp_path, scope_libs, names), "libuses_threads.so")
    assert [code for code, _ in found] == ["SL323"]
    assert "pthread_create, pthread_join in libpthread.so.0" in found[0][1]
    assert "(loaded through libthreads.so)" in found[0][1]
    assert "glibc 2.31 layout, manylinux_2_28 symbol versions" in found[0][1]


def test_a_system_librarys_own_needed_entries_are_in_the_scope(
    tmp_path: Path, scope_libs: dict[str, Path]
) -> None:
    # librt.so.1 of glibc before 2.34 NEEDs libpthread.so.0: the loader searches it too.
    assert dlopen_now(scope_libs["libuses_rt.so"]).returncode == 0
    found = _by(_lint(tmp_path, scope_libs, ("libuses_rt.so",)), "libuses_rt.so")
    assert [code for code, _ in found] == ["SL323"]
    assert (
        "pthread_create, pthread_join in libpthread.so.0 (loaded through librt.so.1)"
        in (found[0][1])
    )


def test_pthread_is_libcs_own_from_glibc_2_34(tmp_path: Path, scope_libs: dict[str, Path]) -> None:
    # The host's glibc (2.34 or later, like the tag's) loads both.
    for name in ("libuses_threads.so", "libuses_pthread_alone.so"):
        assert dlopen_now(scope_libs[name]).returncode == 0
    names = ("libuses_threads.so", "libthreads.so", "libuses_pthread_alone.so", "libuses_rt.so")
    assert _lint(tmp_path, scope_libs, names, tag=NEW_GLIBC) == []


def test_pthread_without_libpthread_anywhere_is_unresolved_before_glibc_2_34(
    tmp_path: Path, scope_libs: dict[str, Path]
) -> None:
    found = _by(
        _lint(tmp_path, scope_libs, ("libuses_pthread_alone.so",)), "libuses_pthread_alone.so"
    )
    assert [code for code, _ in found] == ["SL320"]
    assert "pthread_create, pthread_join;" in found[0][1]
    assert (
        "nothing in the artifact defines them, nor the system libraries it loads (glibc 2.31 "
        "layout, manylinux_2_28 symbol versions)" in found[0][1]
    )


def test_an_opaque_external_in_the_scope_may_define_anything(
    tmp_path: Path, scope_libs: dict[str, Path]
) -> None:
    # libb.so from another wheel: neither it nor what it NEEDs can be read.
    provided = Externals(policies=("platform-tag",), provided=(), system=("libb.so",))
    mf = manifest(libraries=(library("a"),), externals=provided)
    assert _lint(tmp_path, scope_libs, ("liba.so", "liba_bar.so"), mf=mf) == []


# ---------------------------------------------------------------- the interpreter's names


def _extension_manifest(file_name: str) -> Manifest:
    extension = replace(
        library("x", LibraryKind.PYTHON_EXTENSION),
        placements=(Placement(PlatformSelector.parse("linux"), "pkg/lib", file_name, True),),
    )
    return manifest(libraries=(extension,), externals=SYSTEM)


def test_a_declared_python_extension_and_what_it_needs_get_the_interpreters_names(
    tmp_path: Path, scope_libs: dict[str, Path]
) -> None:
    # `_x.so` is a module name the import system loads (abi3 modules need no `.abi3`).
    assert dlopen_now(scope_libs["_x.so"]).returncode == 0
    report = ldd_r(scope_libs["_x.so"])
    assert "undefined symbol: PyLong_FromLong" in report
    assert "undefined symbol: PyErr_Occurred" in report
    names = ("_x.so", "libhelper_py.so")
    assert _lint(tmp_path, scope_libs, names, mf=_extension_manifest("_x.so")) == []


def test_interpreter_names_outside_python_are_unresolved(
    tmp_path: Path, scope_libs: dict[str, Path]
) -> None:
    # Nothing declares or loads the helper as part of a module: outside Python,
    # PyErr_Occurred is defined by nothing (`ldd -r` says so).
    assert "undefined symbol: PyErr_Occurred" in ldd_r(scope_libs["libhelper_py.so"])
    found = _by(_lint(tmp_path, scope_libs, ("libhelper_py.so",)), "libhelper_py.so")
    assert [code for code, _ in found] == ["SL320"]
    assert "PyErr_Occurred" in found[0][1]


def test_a_macho_binary_leaving_py_names_to_dynamic_lookup_gets_the_interpreters(
    tmp_path: Path,
) -> None:
    # The real cmsis_nn module of the macOS wheel (143 `Py*` references, all dynamic
    # lookup), shipped under a plain dylib name as a `lib*_python.dylib` is.
    source = "executorch/backends/cortex_m/library/_cmsis_nn/cmsis_nn.cpython-311-darwin.so"
    with zipfile.ZipFile(wheel("1.5.1", "macosx_14_0_arm64")) as real:
        data = real.read(source)
    path = pack_wheel(
        tmp_path / "executorch-1.5.1-cp311-cp311-macosx_14_0_arm64.whl",
        {"executorch/lib/libcmsis_nn_python.dylib": data},
    )
    mf = load_manifest(EXAMPLE_MANIFEST)
    with open_artifact(path) as tree:
        model = read_inventory(tree, mf)
    (binary,) = model.binaries
    flat = [i for i in binary.imports if i.library is None and i.name.startswith("Py")]
    assert len(flat) > 100
    assert lint(RULES, mf, [model], Selection(select=("SL320",))) == []
