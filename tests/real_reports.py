"""The report of a real run: the ExecuTorch 1.5.1 Linux x86_64 wheel against the example
manifest, with real CMake on both routes. Made once per session and shared by the
reporter tests (SARIF, annotations), since the run itself costs seconds.

Its findings are real and pinned here (by code) so a reporter test notices when
they change; each is explained in PINNED_EXPLANATION, and owned by the rule's area.
"""

from __future__ import annotations

import functools
import io
from contextlib import redirect_stdout
from pathlib import Path

from shiplint.cli import main
from shiplint.report.convert import load_report
from shiplint.report.model import Report

from tests.material import EXAMPLE_MANIFEST, NEW_CMAKE_VERSION, OLD_CMAKE_VERSION, cmake, wheel

WHEEL_VERSION, WHEEL_PLATFORM = "1.5.1", "manylinux_2_28_x86_64"

PINNED_CODES = {
    "SL102": 1,
    "SL103": 1,
    "SL307": 2,
    "SL310": 18,
    "SL321": 1,
    "SL323": 1,
    "SL343": 1,
    "SL346": 8,
    "SL405": 1,
}
PINNED_EXPLANATION = {
    "SL102": "On CMake 3.24.3 (the pre-3.28 'paths' route) EXECUTORCH_LIBRARIES lacks "
    "backend_qnn, which ships in this wheel: the hand-kept pre-3.28 list misses the QNN "
    "delegate.",
    "SL103": "The same gap seen as a disagreement: the two routes publish different "
    "components for linux-x86_64.",
    "SL307": "Strong symbols defined twice: custom_ops_aot_lib and kernels_optimized share 17 "
    "cpublas symbols; kernels_quantized and kernels_optimized share 19 torch::executor helpers.",
    "SL310": "Every ELF file keeps build-tree RUNPATH entries ($ORIGIN/../src/executorch/lib, "
    "some also .../lib64) naming directories the wheel does not contain: 18 libraries and "
    "extensions.",
    "SL323": "kernels_optimized references pthread_create and pthread_join unversioned "
    "without NEEDing libpthread.so.0; it loads (ldd -r is silent) because the threadpool it "
    "NEEDs NEEDs libpthread.so.0: underlinking, a warning.",
    "SL321": "Binaries NEED torch's libtorch*.so and libc10.so, but METADATA does not "
    "require torch (1.4.1 did).",
    "SL343": "extension/data_loader/mman_windows.h line 30 includes <_mingw.h> under "
    "#ifndef _MSC_VER, true on Linux: the Windows mmap shim ships unguarded in the Linux "
    "wheel and a consumer including it fails (g++: '_mingw.h: No such file or directory').",
    "SL346": "Includes behind macros a consumer's build sets (ATen mode, CUDA, HIP, SYCL, "
    "Android) that resolve nowhere: unknown, information only.",
    "SL405": "custom_ops_aot_lib registers its operators through code (no kernel table), so "
    "which operators it registers cannot be read from the binary.",
}


def real_wheel() -> Path:
    return wheel(WHEEL_VERSION, WHEEL_PLATFORM)


def cmake_binaries() -> tuple[Path, Path]:
    return cmake(OLD_CMAKE_VERSION), cmake(NEW_CMAKE_VERSION)


@functools.cache
def _json_report(out_dir: Path) -> str:
    out = out_dir / "executorch-1.5.1-x86_64.json"
    old, new = cmake_binaries()
    argv = [
        "check", "--no-sources", "--manifest", str(EXAMPLE_MANIFEST),
        "--cmake", str(old), "--cmake", str(new),
        "--root", str(out_dir),
        "--format", "json", "--output", str(out), str(real_wheel()),
    ]  # fmt: skip
    with redirect_stdout(io.StringIO()):
        code = main(argv)
    assert code == 1, "the real wheel has error findings: the run must fail"
    return out.read_text(encoding="utf-8")


def executorch_report(out_dir: Path) -> Report:
    """The real run's Report; `out_dir` is a session temporary directory (also the root)."""
    return load_report(_json_report(out_dir), out_dir)


def shared_dir(base: Path) -> Path:
    """One directory per session (under pytest's base temp) so every module shares the run."""
    path = base / "executorch-report"
    path.mkdir(exist_ok=True)
    return path
