"""The generator of the system-library tables applies glibc's lookup rule, checked
against the real loader on a compiled library with hidden and default versions.

`libv.so` defines `foo@V1` (hidden, the first version), `foo@@V2`, `bar@V2` (hidden,
not the first) and `baz@@V2`. An unversioned reference binds to the first version's
definition when there is one (`foo` -> `foo@V1`: the call returns 1), else to the
default one (`baz`), and never to a hidden later one (`bar`: `undefined symbol`).
The generator must record exactly the names the loader binds.
"""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

from tests.load_scope_libs import dlopen_now

REPO = Path(__file__).resolve().parents[1]

_LIBRARY = """
int foo_v1(void) { return 1; }
int foo_v2(void) { return 2; }
int bar_v2(void) { return 3; }
int baz(void) { return 4; }
__asm__(".symver foo_v1, foo@V1");
__asm__(".symver foo_v2, foo@@V2");
__asm__(".symver bar_v2, bar@V2");
"""
_MAP = "V1 { global: foo; local: *; };\nV2 { global: foo; bar; baz; } V1;\n"


def _generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "system_libraries", REPO / ".ci/system_libraries.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _gcc(out: Path, source: Path, *args: str) -> Path:
    subprocess.run(
        ["gcc", "-shared", "-fPIC", "-o", str(out), str(source), *args],
        check=True,
        capture_output=True,
    )
    return out


@pytest.fixture(scope="module")
def versioned(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if shutil.which("gcc") is None:
        pytest.fail("gcc is required to build the versioned test library")
    root = tmp_path_factory.mktemp("versions")
    (root / "v.c").write_text(_LIBRARY)
    (root / "v.map").write_text(_MAP)
    (root / "s.c").write_text("int stub_marker;\n")
    stub = root / "stub"
    stub.mkdir()
    # Consumers link against an empty libv.so, so their references stay unversioned.
    _gcc(stub / "libv.so", root / "s.c", "-Wl,-soname,libv.so")
    for name in ("foo", "bar", "baz"):
        (root / f"u_{name}.c").write_text(
            f"int {name}(void); int use(void) {{ return {name}(); }}\n"
        )
        _gcc(
            root / f"libu_{name}.so",
            root / f"u_{name}.c",
            "-Wl,-rpath,$ORIGIN",
            "-Wl,--no-as-needed",
            f"-L{stub}",
            "-lv",
        )
    return _gcc(
        root / "libv.so",
        root / "v.c",
        "-Wl,-soname,libv.so",
        f"-Wl,--version-script={root / 'v.map'}",
    )


def _call(library: Path) -> subprocess.CompletedProcess[str]:
    code = "import ctypes, os, sys\nprint(ctypes.CDLL(sys.argv[1], mode=os.RTLD_NOW).use())\n"
    return subprocess.run(
        [sys.executable, "-c", code, str(library)], capture_output=True, text=True, check=False
    )


def test_the_loader_binds_the_first_version_then_the_default(versioned: Path) -> None:
    root = versioned.parent
    assert _call(root / "libu_foo.so").stdout.strip() == "1"
    assert _call(root / "libu_baz.so").stdout.strip() == "4"
    failed = dlopen_now(root / "libu_bar.so")
    assert failed.returncode != 0 and "undefined symbol: bar" in failed.stderr


def test_the_generator_records_what_the_loader_binds(versioned: Path) -> None:
    entry = _generator()._library(versioned)
    assert entry["binds"] == {"V1": ["foo"], "V2": ["baz", "foo"]}
    assert entry["needed"] == []
