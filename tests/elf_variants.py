"""Real ELF files of the shapes the system compiler's defaults do not make, built once per session.

    libdep32.so        i386 (ELF32, REL relocations), GNU hash, defines dep_fn and dep_data
                       under version DEP_1.0 (a version definition)
    libuser32.so       i386, SysV hash only, NEEDED libdep32.so (a version requirement),
                       RUNPATH, a pointer table with R_386_RELATIVE and R_386_32 slots,
                       hidden, protected, weak-undefined and GNU_UNIQUE symbols
    user32.o           the i386 relocatable object libuser32.so is linked from
    libpkg_relr.so     x86_64 with packed relative relocations (DT_RELR)
    libpkg_sysv.so     x86_64 with a SysV hash table only
    libpkg_noshdr.so   libpkg.so with its section header table dropped (e_shoff, e_shnum
                       and e_shstrndx zeroed, as sstrip does): read through PT_DYNAMIC alone
    s390x.o, ppc64.o, aarch64_be.o
                       big-endian relocatable objects (llvm-mc). No linker here makes a
                       big-endian shared library (GNU ld is built for x86 only and there is
                       no lld), so big-endian files are covered by objects alone.

i386 code is assembled by llvm-mc and linked by GNU ld's elf_i386 emulation, so no 32-bit
C library is needed.
"""

from __future__ import annotations

import shutil
import struct
import subprocess
from pathlib import Path

import pytest

from tests.artifact_libs import RUNTIME_SOURCE

_DEP32 = """
    .text
    .globl dep_fn
    .type dep_fn, @function
dep_fn:
    ret
    .data
    .globl dep_data
    .type dep_data, @object
    .size dep_data, 4
dep_data:
    .long 7
"""

_USER32 = """
    .text
    .globl user_fn
    .type user_fn, @function
user_fn:
    call dep_fn@PLT
    ret
    .globl hidden_fn
    .hidden hidden_fn
    .type hidden_fn, @function
hidden_fn:
    ret
    .globl prot_fn
    .protected prot_fn
    .type prot_fn, @function
prot_fn:
    ret
    .weak maybe_fn
    .section .rodata
name:
    .asciz "op::name"
    .data
    .globl table
    .type table, @object
    .size table, 16
table:
    .long name
    .long user_fn
    .long dep_data
    .long maybe_fn
    .globl uniq
    .type uniq, @gnu_unique_object
    .size uniq, 4
uniq:
    .long 1
"""

_TINY = """
    .text
    .globl f
f:
    nop
"""

_BIG_ENDIAN_TRIPLES = {
    "s390x.o": "s390x-linux-gnu",
    "ppc64.o": "powerpc64-linux-gnu",
    "aarch64_be.o": "aarch64_be-linux-gnu",
}

_BUILT: dict[str, dict[str, Path]] = {}


def _tool(name: str) -> str:
    path = shutil.which(name)
    if path is None:
        pytest.fail(
            f"{name} is required to build the ELF test files (bash .ci/install-system-tools)"
        )
    return path


def _run(*args: str) -> None:
    done = subprocess.run(args, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        pytest.fail(f"{' '.join(args)} failed: {done.stderr.strip()}")


def _without_section_headers(data: bytes) -> bytes:
    """An x86_64 ELF file with e_shoff, e_shnum and e_shstrndx zeroed."""
    out = bytearray(data)
    struct.pack_into("<Q", out, 0x28, 0)
    struct.pack_into("<HHH", out, 0x3A, 0, 0, 0)
    return bytes(out)


def build_variants(root: Path) -> dict[str, Path]:
    mc, ld, gcc = _tool("llvm-mc"), _tool("ld"), _tool("g++")
    files: dict[str, Path] = {}
    (root / "dep32.s").write_text(_DEP32)
    (root / "user32.s").write_text(_USER32)
    (root / "dep.map").write_text("DEP_1.0 { global: dep_fn; dep_data; local: *; };\n")
    for stem in ("dep32", "user32"):
        _run(mc, "-triple", "i386-linux-gnu", "-filetype=obj", "-o", str(root / f"{stem}.o"),
             str(root / f"{stem}.s"))  # fmt: skip
    i386 = [ld, "-m", "elf_i386", "-shared"]
    _run(*i386, "--hash-style=gnu", "-soname", "libdep32.so",
         f"--version-script={root / 'dep.map'}", "-o", str(root / "libdep32.so"),
         str(root / "dep32.o"))  # fmt: skip
    _run(*i386, "--hash-style=sysv", "-soname", "libuser32.so", "--enable-new-dtags",
         "-rpath", "$ORIGIN/../lib", "-o", str(root / "libuser32.so"), str(root / "user32.o"),
         str(root / "libdep32.so"))  # fmt: skip
    files |= {n: root / n for n in ("libdep32.so", "libuser32.so")}
    files["user32.o"] = root / "user32.o"
    (root / "runtime.cpp").write_text(RUNTIME_SOURCE)
    for name, flag in (
        ("libpkg_relr.so", "-Wl,-z,pack-relative-relocs"),
        ("libpkg_sysv.so", "-Wl,--hash-style=sysv"),
    ):
        _run(gcc, "-shared", "-fPIC", "-O1", "-o", str(root / name), str(root / "runtime.cpp"),
             f"-Wl,-soname,{name}", flag)  # fmt: skip
        files[name] = root / name
    plain = root / "libpkg_plain.so"
    _run(gcc, "-shared", "-fPIC", "-O1", "-o", str(plain), str(root / "runtime.cpp"),
         "-Wl,-soname,libpkg.so")  # fmt: skip
    stripped = root / "libpkg_noshdr.so"
    stripped.write_bytes(_without_section_headers(plain.read_bytes()))
    files["libpkg_noshdr.so"] = stripped
    (root / "tiny.s").write_text(_TINY)
    for name, triple in _BIG_ENDIAN_TRIPLES.items():
        _run(mc, "-triple", triple, "-filetype=obj", "-o", str(root / name), str(root / "tiny.s"))
        files[name] = root / name
    return files


@pytest.fixture(scope="session")
def elf_variants(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    if "variants" not in _BUILT:
        _BUILT["variants"] = build_variants(tmp_path_factory.mktemp("elf-variants"))
    return _BUILT["variants"]
