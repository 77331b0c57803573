"""Tiny real libraries compiled by the system compiler, and wheels packed from them.

One session builds them once (`built_libs` fixture); each test packs the ones it
needs into a wheel in its own tmp dir. Every library is real gcc/g++ output, so
lief reads exactly what it reads in a shipped wheel.

    libpkg.so              the runtime: SONAME libpkg.so, RUNPATH $ORIGIN, owns
                           pkg::runtime::register_kernel(int)
    libpkg_comp.so         a component linked to the runtime (NEEDED libpkg.so)
    libpkg_fat.so          a component with the runtime compiled in (no NEEDED on it)
    libpkg_overload.so     defines register_kernel(double): same base name, other symbol
    libpkg_static.a        the component as a static archive
    libpkg_badname.so      SONAME libwrong.so
    libpkg_rpath.so        DT_RPATH instead of DT_RUNPATH (--disable-new-dtags)
    libpkg_abs.so          RUNPATH /home/build/pkg/build/lib (absolute, build tree)
    libpkg_missing.so      NEEDED libnothere.so, which no wheel ships
    libpkg_atomic.so       NEEDED libatomic.so.1 (a system library some policies allow)
    libver_v1.so           SONAME libver.so, defines ver_fn under version VER_1
    libver_v2.so           SONAME libver.so, defines ver_fn under version VER_2
    libpkg_versioned.so    NEEDED libver.so, references ver_fn@VER_2 (linked to libver_v2.so)
    pkg_tool               an executable
"""

from __future__ import annotations

import base64
import hashlib
import shutil
import subprocess
import zipfile
from collections.abc import Iterable, Mapping
from pathlib import Path

import pytest

RUNTIME_SOURCE = """
namespace pkg { namespace runtime {
int register_kernel(int id) { return id + 1; }
inline int vague() { static int counter = 0; return ++counter; }
__attribute__((noinline)) inline int weak_helper() { return vague() + 1; }
int use_vague() { return weak_helper(); }
template <typename T> struct Registry { static int slots; };
template <typename T> int Registry<T>::slots = 0;
int touch() { return Registry<int>::slots++; }
} }
extern "C" int pkg_runtime_version() { return 1; }
"""

COMPONENT_SOURCE = """
namespace pkg { namespace runtime { int register_kernel(int id); } }
namespace pkg { namespace comp {
static int registered = pkg::runtime::register_kernel(7);
int kernels() { return registered; }
} }
"""

OVERLOAD_SOURCE = """
namespace pkg { namespace runtime { double register_kernel(double id) { return id; } } }
"""

MISSING_DEP_SOURCE = "int nothere(void); int uses_nothere(void) { return nothere(); }\n"

TOOL_SOURCE = "int main(void) { return 0; }\n"


def _compile(
    out: Path, sources: list[Path], *args: str, cxx: bool = True, shared: bool = True
) -> Path:
    compiler = "g++" if cxx else "gcc"
    flags = ["-shared", "-fPIC"] if shared else []
    subprocess.run(
        [compiler, *flags, "-O1", "-o", str(out), *map(str, sources), *args],
        check=True,
        capture_output=True,
    )
    return out


def build_libraries(root: Path) -> dict[str, Path]:
    if shutil.which("g++") is None or shutil.which("gcc") is None:
        pytest.fail("gcc/g++ are required to build the artifact test libraries")
    src = root / "src"
    src.mkdir()
    (src / "runtime.cpp").write_text(RUNTIME_SOURCE)
    (src / "comp.cpp").write_text(COMPONENT_SOURCE)
    (src / "overload.cpp").write_text(OVERLOAD_SOURCE)
    (src / "missing.c").write_text(MISSING_DEP_SOURCE)
    (src / "nothere.c").write_text("int nothere(void) { return 3; }\n")
    (src / "tool.c").write_text(TOOL_SOURCE)
    out = root / "out"
    out.mkdir()
    libs: dict[str, Path] = {}
    libs["libpkg.so"] = _compile(
        out / "libpkg.so", [src / "runtime.cpp"], "-Wl,-soname,libpkg.so", "-Wl,-rpath,$ORIGIN"
    )
    link_runtime = ["-L", str(out), "-Wl,--no-as-needed", "-lpkg"]
    libs["libpkg_comp.so"] = _compile(
        out / "libpkg_comp.so",
        [src / "comp.cpp"],
        "-Wl,-soname,libpkg_comp.so",
        "-Wl,-rpath,$ORIGIN",
        *link_runtime,
    )
    libs["libpkg_fat.so"] = _compile(
        out / "libpkg_fat.so",
        [src / "comp.cpp", src / "runtime.cpp"],
        "-Wl,-soname,libpkg_fat.so",
        "-Wl,-rpath,$ORIGIN",
    )
    libs["libpkg_overload.so"] = _compile(
        out / "libpkg_overload.so",
        [src / "overload.cpp"],
        "-Wl,-soname,libpkg_overload.so",
        "-Wl,-rpath,$ORIGIN",
        *link_runtime,
    )
    libs["libpkg_badname.so"] = _compile(
        out / "libpkg_badname.so",
        [src / "comp.cpp"],
        "-Wl,-soname,libwrong.so",
        "-Wl,-rpath,$ORIGIN",
        *link_runtime,
    )
    libs["libpkg_rpath.so"] = _compile(
        out / "libpkg_rpath.so",
        [src / "comp.cpp"],
        "-Wl,-soname,libpkg_rpath.so",
        "-Wl,--disable-new-dtags,-rpath,$ORIGIN",
        *link_runtime,
    )
    libs["libpkg_abs.so"] = _compile(
        out / "libpkg_abs.so",
        [src / "comp.cpp"],
        "-Wl,-soname,libpkg_abs.so",
        "-Wl,-rpath,/home/build/pkg/build/lib",
        *link_runtime,
    )
    nothere = _compile(
        out / "libnothere.so", [src / "nothere.c"], "-Wl,-soname,libnothere.so", cxx=False
    )
    libs["libpkg_missing.so"] = _compile(
        out / "libpkg_missing.so",
        [src / "missing.c"],
        "-Wl,-soname,libpkg_missing.so",
        "-Wl,-rpath,$ORIGIN",
        "-L",
        str(out),
        "-lnothere",
        cxx=False,
    )
    nothere.unlink()
    (src / "ver.c").write_text("int ver_fn(void) { return 2; }\n")
    (src / "uses_ver.c").write_text("int ver_fn(void); int uses_ver(void) { return ver_fn(); }\n")
    for version in ("VER_1", "VER_2"):
        script = src / f"{version}.map"
        script.write_text(f"{version} {{ global: ver_fn; local: *; }};\n")
        libs[f"libver_v{version[-1]}.so"] = _compile(
            out / f"libver_v{version[-1]}.so",
            [src / "ver.c"],
            "-Wl,-soname,libver.so",
            f"-Wl,--version-script={script}",
            cxx=False,
        )
    linked = out / "linkdir"
    linked.mkdir()
    shutil.copy(libs["libver_v2.so"], linked / "libver.so")
    libs["libpkg_versioned.so"] = _compile(
        out / "libpkg_versioned.so",
        [src / "uses_ver.c"],
        "-Wl,-soname,libpkg_versioned.so",
        "-Wl,-rpath,$ORIGIN",
        "-L",
        str(linked),
        "-lver",
        cxx=False,
    )
    libs["libpkg_atomic.so"] = _compile(
        out / "libpkg_atomic.so",
        [src / "tool.c"],
        "-Wl,-soname,libpkg_atomic.so",
        "-Wl,--no-as-needed",
        "-latomic",
        cxx=False,
    )
    obj = out / "comp.o"
    subprocess.run(
        ["g++", "-c", "-fPIC", "-o", str(obj), str(src / "comp.cpp")],
        check=True,
        capture_output=True,
    )
    subprocess.run(["ar", "rcs", str(out / "libpkg_static.a"), str(obj)], check=True)
    libs["libpkg_static.a"] = out / "libpkg_static.a"
    libs["comp.o"] = obj
    libs["pkg_tool"] = _compile(out / "pkg_tool", [src / "tool.c"], cxx=False, shared=False)
    return libs


# Each test module that imports the fixture gets its own fixture definition; the
# libraries are still compiled once per session.
_BUILT: dict[str, dict[str, Path]] = {}


@pytest.fixture(scope="session")
def built_libs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    if "libs" not in _BUILT:
        _BUILT["libs"] = build_libraries(tmp_path_factory.mktemp("artifact-libs"))
    return _BUILT["libs"]


def record_name(wheel_name: str, names: Iterable[str]) -> str:
    """Where a wheel's RECORD goes: in the .dist-info directory its members have, else in
    the one its file name (`<name>-<version>-...whl`) gives."""
    for name in names:
        top = name.split("/", 1)[0]
        if top.endswith(".dist-info"):
            return f"{top}/RECORD"
    distribution, version = wheel_name.split("-")[:2]
    return f"{distribution}-{version}.dist-info/RECORD"


def record_text(record: str, members: Iterable[tuple[str, bytes]]) -> bytes:
    """A RECORD as a wheel builder writes it: each member's SHA-256 (urlsafe base64,
    unpadded) and size, and the RECORD itself with neither; directory entries are no files."""
    rows = []
    for name, data in members:
        if name == record or name.endswith("/"):
            continue
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        rows.append(f"{name},sha256={digest},{len(data)}")
    rows.append(f"{record},,")
    return ("\n".join(rows) + "\n").encode()


def pack_wheel(
    path: Path, members: Mapping[str, Path | bytes], extra: Mapping[str, bytes] | None = None
) -> Path:
    """A wheel at `path` holding `members` (member path -> file or bytes) and, unless
    they hold one, the RECORD a wheel builder writes for them (a .zip gets none)."""
    contents = [
        (name, source.read_bytes() if isinstance(source, Path) else source)
        for name, source in members.items()
    ]
    contents += list((extra or {}).items())
    if path.suffix == ".whl":
        record = record_name(path.name, (name for name, _ in contents))
        if record not in dict(contents):
            contents.append((record, record_text(record, contents)))
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in contents:
            archive.writestr(name, data)
    return path
