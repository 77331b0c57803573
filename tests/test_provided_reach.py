"""SL350: a provided library is reachable where its distribution installs it.

Real gcc output: `libprov.so` stands for torch's libraries, installed by the
`provdist` distribution in `provdist/lib`; `libuser.so`, shipped by the wheel under
test as `pkg/lib/libuser.so`, NEEDs it, linked with each RUNPATH below. For every
variant the rule's verdict is checked against glibc's loader: the two files are laid
out as pip installs them (site-packages/provdist/lib, site-packages/pkg/lib) and a
fresh interpreter dlopens libuser.so with RTLD_NOW, before and after loading
libprov.so (what `import torch` does first).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from shiplint.artifacts.archive import open_artifact
from shiplint.artifacts.inventory import read_inventory
from shiplint.diagnostics import Diagnostic
from shiplint.engine import Selection, lint
from shiplint.manifest.errors import ManifestError
from shiplint.manifest.load import load_manifest
from shiplint.manifest.model import Externals, LibraryKind, ProvidedLibraries
from shiplint.registry import RULES

from tests.artifact_libs import pack_wheel
from tests.builders import library, manifest
from tests.material import EXAMPLE_MANIFEST, wheel

TAG = "pkg-1.0-cp311-cp311-manylinux_2_28_x86_64.whl"
USER = "pkg/lib/libuser.so"

# name -> (the -rpath given to the linker, or None for no entry; DT_RPATH instead of RUNPATH)
VARIANTS: dict[str, tuple[str | None, bool]] = {
    "climbs-to-provider": ("$ORIGIN/../../provdist/lib", False),
    "climbs-as-rpath": ("$ORIGIN/../../provdist/lib", True),
    "second-entry": ("$ORIGIN:$ORIGIN/../../provdist/lib", False),
    "own-directory-only": ("$ORIGIN", False),
    "none": (None, False),
    "build-machine": ("/home/build/venv/lib/python3.11/site-packages/provdist/lib", False),
    "one-level-short": ("$ORIGIN/../provdist/lib", False),
    "provider-top-only": ("$ORIGIN/../../provdist", False),
}
REACHES = {"climbs-to-provider", "climbs-as-rpath", "second-entry"}


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    if shutil.which("gcc") is None:
        pytest.fail("gcc is required to build the SL350 test libraries")
    root = tmp_path_factory.mktemp("sl350")
    (root / "prov.c").write_text("int prov_value(void) { return 41; }\n")
    (root / "user.c").write_text(
        "int prov_value(void);\nint user_value(void) { return prov_value() + 1; }\n"
    )
    prov = root / "libprov.so"
    _gcc(prov, root / "prov.c", "-Wl,-soname,libprov.so")
    libs = {"libprov.so": prov}
    for name, (rpath, old_tag) in VARIANTS.items():
        out = root / name / "libuser.so"
        out.parent.mkdir()
        args = [f"-L{root}", "-lprov", "-Wl,-soname,libuser.so"]
        if rpath is not None:
            new_tags = "--disable-new-dtags" if old_tag else "--enable-new-dtags"
            args.append(f"-Wl,{new_tags},-rpath,{rpath}")
        _gcc(out, root / "user.c", *args)
        libs[name] = out
    return libs


def _gcc(out: Path, source: Path, *args: str) -> None:
    subprocess.run(
        ["gcc", "-shared", "-fPIC", "-o", str(out), str(source), *args],
        check=True,
        capture_output=True,
    )


def _sl350(
    tmp_path: Path, user: Path, directory: str | None = "provdist/lib", loaded_by: str | None = None
) -> list[Diagnostic]:
    provided = ProvidedLibraries(
        "prov", ("libprov.so",), "provdist", directory=directory, loaded_by=loaded_by
    )
    mf = manifest(
        libraries=(library("user", LibraryKind.RUNTIME),),
        externals=Externals(policies=("platform-tag",), provided=(provided,)),
    )
    path = pack_wheel(tmp_path / TAG, {USER: user})
    with open_artifact(path) as tree:
        model = read_inventory(tree, mf)
    return lint(RULES, mf, [model], Selection(select=("SL350",)))


def _loads(site: Path, preload: bool) -> bool:
    """Whether a fresh interpreter dlopens site/pkg/lib/libuser.so with RTLD_NOW."""
    script = (
        "import ctypes, os, sys\n"
        "flags = os.RTLD_NOW\n"
        f"if {preload!r}: ctypes.CDLL(sys.argv[1] + '/provdist/lib/libprov.so', flags)\n"
        "try:\n"
        f"    ctypes.CDLL(sys.argv[1] + '/{USER}', flags)\n"
        "except OSError as error:\n"
        "    print(error)\n"
        "    sys.exit(3)\n"
    )
    run = subprocess.run(
        [sys.executable, "-c", script, str(site)], capture_output=True, text=True, check=False
    )
    assert run.returncode in (0, 3), run.stderr
    if run.returncode == 3:
        assert "libprov.so: cannot open shared object file" in run.stdout
    return run.returncode == 0


def _site(tmp_path: Path, built: dict[str, Path], variant: str) -> Path:
    site = tmp_path / "site-packages"
    (site / "provdist" / "lib").mkdir(parents=True)
    (site / "pkg" / "lib").mkdir(parents=True)
    shutil.copy(built["libprov.so"], site / "provdist" / "lib" / "libprov.so")
    shutil.copy(built[variant], site / USER)
    return site


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_fires_exactly_when_the_loader_does_not_find_the_library(
    tmp_path: Path, built: dict[str, Path], variant: str
) -> None:
    found = _sl350(tmp_path, built[variant])
    loads = _loads(_site(tmp_path, built, variant), preload=False)
    assert loads is (variant in REACHES)
    assert bool(found) is not loads
    for diagnostic in found:
        assert diagnostic.location.member == USER
        assert "NEEDs libprov.so, which provdist installs in provdist/lib" in diagnostic.message
        rpath = VARIANTS[variant][0]
        if rpath is not None:
            assert rpath.split(":")[0] in diagnostic.message
        assert diagnostic.hint is not None
        assert "`$ORIGIN/../../provdist/lib`" in diagnostic.hint


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_quiet_when_an_import_loads_it_first(
    tmp_path: Path, built: dict[str, Path], variant: str
) -> None:
    assert _sl350(tmp_path, built[variant], loaded_by="provdist") == []
    # glibc reuses the loaded library whose SONAME matches, whatever the RUNPATH.
    assert _loads(_site(tmp_path, built, variant), preload=True)


def test_without_a_declared_directory_any_directory_of_the_distribution_counts(
    tmp_path: Path, built: dict[str, Path]
) -> None:
    assert _sl350(tmp_path, built["provider-top-only"], directory=None) == []
    assert _sl350(tmp_path, built["climbs-to-provider"], directory=None) == []
    (finding,) = _sl350(tmp_path, built["own-directory-only"], directory=None)
    assert "which provdist installs in provdist/…" in finding.message


def test_quiet_for_an_install_tree(tmp_path: Path, built: dict[str, Path]) -> None:
    provided = ProvidedLibraries("prov", ("libprov.so",), "provdist", directory="provdist/lib")
    mf = manifest(
        libraries=(library("user", LibraryKind.RUNTIME),),
        externals=Externals(policies=("platform-tag",), provided=(provided,)),
    )
    tree_root = tmp_path / "prefix"
    (tree_root / "pkg" / "lib").mkdir(parents=True)
    shutil.copy(built["none"], tree_root / USER)
    with open_artifact(tree_root) as tree:
        model = read_inventory(tree, mf)
    assert lint(RULES, mf, [model], Selection(select=("SL350",))) == []


# The real wheels, with the example manifest (`directory: torch/lib`): the 1.5.1 binaries
# NEEDing torch's libraries climb to site-packages/torch/lib; 1.0.1's macOS wheel linked
# three of them with its build machine's site-packages only (docs/findings/artifacts.md).
EXAMPLE_1_0_1_MACOS = {
    "executorch/extension/llm/custom_ops/libcustom_ops_aot_lib.dylib": (
        "@rpath/libtorch.dylib, @rpath/libtorch_cpu.dylib, @rpath/libc10.dylib"
    ),
    "executorch/extension/training/pybindings/_training_lib.cpython-311-darwin.so": (
        "@rpath/libtorch_python.dylib, @rpath/libtorch.dylib, @rpath/libtorch_cpu.dylib, "
        "@rpath/libc10.dylib"
    ),
    "executorch/kernels/quantized/libquantized_ops_aot_lib.dylib": (
        "@rpath/libtorch.dylib, @rpath/libtorch_cpu.dylib, @rpath/libc10.dylib"
    ),
}


def _real(version: str, platform: str, path: Path = EXAMPLE_MANIFEST) -> list[Diagnostic]:
    mf = load_manifest(path)
    with open_artifact(wheel(version, platform)) as tree:
        model = read_inventory(tree, mf)
    return lint(RULES, mf, [model], Selection(select=("SL350",)))


def test_real_1_0_1_macos_wheel_links_torch_at_the_build_machine() -> None:
    found = {d.location.member: d.message for d in _real("1.0.1", "macosx_12_0_arm64")}
    assert set(found) == set(EXAMPLE_1_0_1_MACOS)
    for member, needed in EXAMPLE_1_0_1_MACOS.items():
        assert f"NEEDs {needed}, which torch installs in torch/lib" in found[member]
        assert "/Users/runner/work/_temp/" in found[member]


@pytest.mark.parametrize(
    "platform", ["manylinux_2_28_x86_64", "manylinux_2_28_aarch64", "macosx_14_0_arm64"]
)
def test_real_1_5_1_wheels_reach_torch_lib(platform: str) -> None:
    assert _real("1.5.1", platform) == []


def test_an_import_declared_first_does_not_excuse_a_macos_binary(tmp_path: Path) -> None:
    text = EXAMPLE_MANIFEST.read_text(encoding="utf-8")
    declared = text.replace(
        "      directory: torch/lib\n", "      directory: torch/lib\n      loaded_by: torch\n"
    )
    assert declared != text
    path = tmp_path / "shiplint.yaml"
    path.write_text(declared, encoding="utf-8")
    found = _real("1.0.1", "macosx_12_0_arm64", path)
    assert {d.location.member for d in found} == set(EXAMPLE_1_0_1_MACOS)


@pytest.mark.parametrize(
    "bad", ["../torch/lib", "/opt/torch/lib", "$ORIGIN/../torch/lib", "torch/../lib"]
)
def test_a_directory_that_is_no_site_packages_path_is_refused_with_its_line(
    tmp_path: Path, bad: str
) -> None:
    text = EXAMPLE_MANIFEST.read_text(encoding="utf-8")
    path = tmp_path / "shiplint.yaml"
    path.write_text(text.replace("directory: torch/lib", f'directory: "{bad}"'), encoding="utf-8")
    with pytest.raises(ManifestError) as raised:
        load_manifest(path)
    (problem,) = raised.value.problems
    assert problem.location.line == text[: text.index("directory: torch/lib")].count("\n") + 1
    assert problem.where == "externals.provided[0].directory"
