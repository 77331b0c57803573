"""Tiny real Windows DLLs: assembled by llvm-mc, linked by GNU ld's PE emulation (i386pep).

No Windows compiler is needed: `llvm-mc -triple x86_64-pc-windows-gnu` writes COFF
objects and binutils' `ld -m i386pep` links them into DLLs with real export and import
tables, as lief reads them in a shipped wheel. Built once per session (`pe_dlls`).

    core.dll          exports core_add (ordinal 1) and core_mul (ordinal 7), by name
    core_v1.dll       named core.dll too, exports core_add (ordinal 1) only
    user.dll          imports core_add and core_mul from core.dll by name
    user_ordinal.dll  imports core_add by name and ordinal 7 (core_mul) alone from core.dll
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

_CORE = """
    .text
    .globl core_add
core_add:
    leal (%rcx,%rdx), %eax
    ret
    .globl core_mul
core_mul:
    movl %ecx, %eax
    imull %edx, %eax
    ret
"""

_CORE_V1 = """
    .text
    .globl core_add
core_add:
    leal (%rcx,%rdx), %eax
    ret
"""

_USER = """
    .text
    .globl user_entry
user_entry:
    subq $40, %rsp
    callq *__imp_core_add(%rip)
    callq *__imp_core_mul(%rip)
    addq $40, %rsp
    ret
"""

# Module-definition files: the DLL's name and its exports with their ordinals; the
# NONAME one writes an import library that imports core_mul by ordinal alone.
_DEFS = {
    "core.def": "LIBRARY core.dll\nEXPORTS\ncore_add @1\ncore_mul @7\n",
    "core_noname.def": "LIBRARY core.dll\nEXPORTS\ncore_add @1\ncore_mul @7 NONAME\n",
    "core_v1.def": "LIBRARY core.dll\nEXPORTS\ncore_add @1\n",
    "user.def": "LIBRARY user.dll\nEXPORTS\nuser_entry\n",
}

_BUILT: dict[str, dict[str, Path]] = {}


def _tool(name: str, path: str | None) -> str:
    if path is None:
        pytest.fail(f"{name} is required to build the test DLLs (bash .ci/install-system-tools)")
    return path


def _run(*args: str) -> None:
    done = subprocess.run(args, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        pytest.fail(f"{' '.join(args)} failed: {done.stderr.strip()}")


def build_dlls(root: Path) -> dict[str, Path]:
    mc = _tool("llvm-mc", shutil.which("llvm-mc"))
    ld = _tool("ld", shutil.which("ld"))
    for name, text in {"core.s": _CORE, "core_v1.s": _CORE_V1, "user.s": _USER, **_DEFS}.items():
        (root / name).write_text(text)
    for stem in ("core", "core_v1", "user"):
        _run(mc, "-triple", "x86_64-pc-windows-gnu", "-filetype=obj", "-o",
             str(root / f"{stem}.o"), str(root / f"{stem}.s"))  # fmt: skip
    dll = [ld, "-m", "i386pep", "--dll", "-e", "0"]

    def link(out: str, *inputs: str) -> Path:
        _run(*dll, "-o", str(root / out), *(str(root / i) for i in inputs))
        return root / out

    link("core.dll", "core.o", "core.def")
    _run(*dll, "-o", str(root / "core_noname.dll"), str(root / "core.o"),
         str(root / "core_noname.def"), "--out-implib", str(root / "core_ordinals.a"))  # fmt: skip
    link("core_v1.dll", "core_v1.o", "core_v1.def")
    # Linked against core.dll itself: GNU ld reads a DLL's exports as an import library.
    link("user.dll", "user.o", "user.def", "core.dll")
    link("user_ordinal.dll", "user.o", "user.def", "core_ordinals.a")
    return {n: root / n for n in ("core.dll", "core_v1.dll", "user.dll", "user_ordinal.dll")}


@pytest.fixture(scope="session")
def pe_dlls(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    if "dlls" not in _BUILT:
        _BUILT["dlls"] = build_dlls(tmp_path_factory.mktemp("pe-dlls"))
    return _BUILT["dlls"]
