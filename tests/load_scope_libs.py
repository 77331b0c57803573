"""Real libraries, compiled by the system compiler, whose symbols resolve (or not) only
through the ELF loader's whole load scope.

    libfoo.so             defines foo@@V1 (a version script)
    libb.so               NEEDED libfoo.so; defines b_fn
    liba.so               calls foo (unversioned) and b_fn; NEEDED libb.so only: foo
                          comes from libb's dependency (underlinked, but it loads)
    liba_linked.so        the same, linked to libfoo too: foo@V1 from its own NEEDED
    liba_bar.so           calls bar, which nothing defines; NEEDED libb.so
    libthreads.so         NEEDED libpthread.so.0 (as libexecutorch_threadpool.so)
    libuses_threads.so    calls pthread_create/pthread_join unversioned, linked against a
                          libc.so.6 that lacks them (as glibc 2.28's does), NEEDED
                          libthreads.so and that libc.so.6 (as libexecutorch_kernels_optimized.so)
    libuses_pthread_alone.so  the same without libthreads.so
    libuses_rt.so         the same, NEEDing librt.so.1 instead of libthreads.so: before
                          glibc 2.34 librt itself NEEDs libpthread.so.0
    _x.so                 a Python extension named as an abi3 module may be (no
                          `.abi3.so`): calls PyLong_FromLong and helper_py; NEEDED
                          libhelper_py.so
    libhelper_py.so       calls PyErr_Occurred; NEEDED by _x.so only

Every library has RUNPATH $ORIGIN, so the members find each other in one directory.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

_SOURCES = {
    "foo.c": "int foo(void) { return 1; }\n",
    "b.c": "int b_fn(void) { return 2; }\n",
    "a.c": "int foo(void); int b_fn(void); int a_fn(void) { return foo() + b_fn(); }\n",
    "bar.c": "int bar(void); int b_fn(void); int a_bar(void) { return bar() + b_fn(); }\n",
    "threads.c": "int threads_fn(void) { return 3; }\n",
    "uses_threads.c": (
        "typedef unsigned long pthread_t;\n"
        "int pthread_create(pthread_t *, const void *, void *(*)(void *), void *);\n"
        "int pthread_join(pthread_t, void **);\n"
        "static void *run(void *arg) { return arg; }\n"
        "int spawn(void) { pthread_t t; if (pthread_create(&t, 0, run, 0)) return 1;\n"
        "  return pthread_join(t, 0); }\n"
    ),
    "libc_stub.c": "int libc_stub_marker;\n",
    "x.c": (
        "void *PyLong_FromLong(long); int helper_py(void);\n"
        "void *PyInit__x(void) { return PyLong_FromLong(helper_py()); }\n"
    ),
    "helper_py.c": "void *PyErr_Occurred(void); int helper_py(void) { return PyErr_Occurred() != 0; }\n",
}


def _gcc(out: Path, source: Path, soname: str, *args: str) -> Path:
    subprocess.run(
        [
            "gcc",
            "-shared",
            "-fPIC",
            "-O1",
            "-o",
            str(out),
            str(source),
            f"-Wl,-soname,{soname}",
            "-Wl,-rpath,$ORIGIN",
            *args,
        ],
        check=True,
        capture_output=True,
    )
    return out


def build(root: Path) -> dict[str, Path]:
    if shutil.which("gcc") is None:
        pytest.fail("gcc is required to build the load-scope test libraries")
    src, out = root / "src", root / "out"
    src.mkdir()
    out.mkdir()
    for name, text in _SOURCES.items():
        (src / name).write_text(text)
    (src / "foo.map").write_text("V1 { global: foo; local: *; };\n")
    libs: dict[str, Path] = {}

    # Each library is linked in a directory of its own holding only what it links,
    # so the linker cannot take a symbol from a dependency's dependency.
    def linkdir(name: str, *members: str) -> str:
        directory = root / f"link-{name}"
        directory.mkdir()
        for member in members:
            shutil.copy(libs[member], directory / member)
        return str(directory)

    libs["libfoo.so"] = _gcc(
        out / "libfoo.so", src / "foo.c", "libfoo.so", f"-Wl,--version-script={src / 'foo.map'}"
    )
    no_as_needed = "-Wl,--no-as-needed"
    libs["libb.so"] = _gcc(
        out / "libb.so",
        src / "b.c",
        "libb.so",
        "-L",
        linkdir("b", "libfoo.so"),
        no_as_needed,
        "-lfoo",
    )
    libs["liba.so"] = _gcc(
        out / "liba.so", src / "a.c", "liba.so", "-L", linkdir("a", "libb.so"), "-lb"
    )
    libs["liba_linked.so"] = _gcc(
        out / "liba_linked.so",
        src / "a.c",
        "liba_linked.so",
        "-L",
        linkdir("a_linked", "libb.so", "libfoo.so"),
        "-lb",
        "-lfoo",
    )
    libs["liba_bar.so"] = _gcc(
        out / "liba_bar.so", src / "bar.c", "liba_bar.so", "-L", linkdir("a_bar", "libb.so"), "-lb"
    )
    libs["libthreads.so"] = _gcc(
        out / "libthreads.so",
        src / "threads.c",
        "libthreads.so",
        no_as_needed,
        "-l:libpthread.so.0",
    )
    # A libc.so.6 to link against that defines no pthread function, as glibc 2.28's
    # libc does not: the references stay unversioned, as they are in a library built
    # on manylinux_2_28 without -pthread.
    stub = root / "stub"
    stub.mkdir()
    _gcc(stub / "libc.so.6", src / "libc_stub.c", "libc.so.6", "-nostdlib")
    threads = linkdir("uses_threads", "libthreads.so")
    libs["libuses_threads.so"] = _gcc(
        out / "libuses_threads.so",
        src / "uses_threads.c",
        "libuses_threads.so",
        "-nostdlib",
        no_as_needed,
        "-L",
        threads,
        "-lthreads",
        "-L",
        str(stub),
        "-l:libc.so.6",
    )
    libs["libuses_pthread_alone.so"] = _gcc(
        out / "libuses_pthread_alone.so",
        src / "uses_threads.c",
        "libuses_pthread_alone.so",
        "-nostdlib",
        no_as_needed,
        "-L",
        str(stub),
        "-l:libc.so.6",
    )
    libs["libuses_rt.so"] = _gcc(
        out / "libuses_rt.so",
        src / "uses_threads.c",
        "libuses_rt.so",
        "-nostdlib",
        no_as_needed,
        "-l:librt.so.1",
        "-L",
        str(stub),
        "-l:libc.so.6",
    )
    libs["libhelper_py.so"] = _gcc(out / "libhelper_py.so", src / "helper_py.c", "libhelper_py.so")
    libs["_x.so"] = _gcc(
        out / "_x.so",
        src / "x.c",
        "_x.so",
        "-L",
        linkdir("x", "libhelper_py.so"),
        no_as_needed,
        "-lhelper_py",
    )
    return libs


_BUILT: dict[str, dict[str, Path]] = {}


@pytest.fixture(scope="session")
def scope_libs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    if "libs" not in _BUILT:
        _BUILT["libs"] = build(tmp_path_factory.mktemp("load-scope-libs"))
    return _BUILT["libs"]


def dlopen_now(library: Path) -> subprocess.CompletedProcess[str]:
    """dlopen(RTLD_NOW) of `library` in a fresh Python process: every non-weak
    reference bound at once, as `ldd -r` checks (and the interpreter's own names there)."""
    code = "import ctypes, os, sys\nctypes.CDLL(sys.argv[1], mode=os.RTLD_NOW)\n"
    return subprocess.run(
        [sys.executable, "-c", code, str(library)], capture_output=True, text=True, check=False
    )


def ldd_r(library: Path) -> str:
    """`ldd -r` of `library`: the loader's own report, its undefined symbols included."""
    done = subprocess.run(
        ["ldd", "-r", str(library)],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "LC_ALL": "C"},
    )
    return done.stdout + done.stderr
