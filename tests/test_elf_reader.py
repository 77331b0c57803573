"""The struct ELF reader gives exactly lief's record and pointers, or hands the file to lief.

lief 1.0 is the reference: on corrupted copies older releases answer otherwise (0.15
raises on relocation types it cannot name), and the reader follows 1.0.

Compared against lief_reader's lief path itself (`_read_elf`, `_elf_pointers`), on every
ELF member of every real wheel in the test material, on the libraries the suite compiles,
and on copies of them cut short, corrupted or given hostile counts.
"""

from __future__ import annotations

import random
import struct
import zipfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from shiplint.artifacts.headers import ELF_MAGIC
from shiplint.artifacts.pointers import RelocatedPointers
from shiplint.artifacts.reading import elf_reader, lief_reader, read_binary
from shiplint.artifacts.records import BinaryError, BinaryRecord

from tests.artifact_libs import built_libs
from tests.elf_variants import elf_variants
from tests.material import CACHE, OTHER_WHEELS, TBB_RUNTIME, cached_wheel, wheel

__all__ = ["built_libs", "elf_variants"]

# lief's enums warn on the out-of-range values of corrupted copies; read_binary silences
# them, and these tests call lief_reader's lief path directly.
pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")

# Every wheel of the test material that holds ELF files (mlx-metal is macOS only).
_WHEELS: dict[str, Callable[[], Path]] = {
    "executorch-1.5.1-x86_64": lambda: wheel("1.5.1", "manylinux_2_28_x86_64"),
    "executorch-1.5.1-aarch64": lambda: wheel("1.5.1", "manylinux_2_28_aarch64"),
    "executorch-1.4.1-x86_64": lambda: wheel("1.4.1", "manylinux_2_28_x86_64"),
    "openvino": lambda: cached_wheel(*OTHER_WHEELS["openvino"]),
    "tbb-devel": lambda: cached_wheel(*OTHER_WHEELS["tbb-devel"]),
    "tbb": lambda: cached_wheel(*TBB_RUNTIME),
    "fmt": lambda: cached_wheel(*OTHER_WHEELS["fmt"]),
    "eigen": lambda: cached_wheel(*OTHER_WHEELS["eigen"]),
}


def _elf_members(path: Path) -> Iterator[tuple[str, bytes]]:
    with zipfile.ZipFile(path) as archive:
        for info in archive.infolist():
            with archive.open(info) as member:
                if member.read(4) != ELF_MAGIC:
                    continue
            yield info.filename, archive.read(info)


def _assert_as_lief(data: bytes, name: str) -> None:
    """The struct reader is sure of this file, and says what lief says."""
    record = elf_reader.read_elf(data, name)
    assert record is not None, f"{name}: the struct reader handed a well-formed file to lief"
    assert record == lief_reader._read_elf(data, name), name
    pointers = elf_reader.read_elf_pointers(data)
    assert pointers is not None, f"{name}: the struct reader handed a well-formed file to lief"
    assert pointers == lief_reader._elf_pointers(data), name


@pytest.mark.parametrize("label", sorted(_WHEELS))
def test_every_elf_member_of_the_real_wheels_reads_as_lief_reads_it(label: str) -> None:
    members = list(_elf_members(_WHEELS[label]()))
    assert members, f"{label}: no ELF member"
    for name, data in members:
        _assert_as_lief(data, name)


def test_the_material_has_no_other_wheel_with_elf_files() -> None:
    """A wheel fetched later with ELF files in it joins the comparison above."""
    compared = {_WHEELS[label]().name for label in _WHEELS}
    for path in sorted((CACHE / "wheels").glob("*.whl")):
        if path.name not in compared:
            assert next(_elf_members(path), None) is None, path.name


def test_the_compiled_libraries_read_as_lief_reads_them(
    built_libs: dict[str, Path], elf_variants: dict[str, Path]
) -> None:
    files = {**built_libs, **elf_variants}
    elf = {n: p.read_bytes() for n, p in files.items() if p.read_bytes()[:4] == ELF_MAGIC}
    # ELF32 and big-endian files, RELR, SysV hash, no section headers: all among them.
    assert {"libuser32.so", "s390x.o", "libpkg_relr.so", "libpkg_noshdr.so"} <= set(elf)
    for name, data in elf.items():
        _assert_as_lief(data, name)


def test_an_elf32_library_keeps_its_versions_and_pointers(elf_variants: dict[str, Path]) -> None:
    data = elf_variants["libuser32.so"].read_bytes()
    record = elf_reader.read_elf(data, "libuser32.so")
    assert record is not None
    assert record.arches == ("x86",) and record.runpath == ("$ORIGIN/../lib",)
    assert {(i.name, i.version, i.file, i.weak) for i in record.imports} == {
        ("dep_fn", "DEP_1.0", "libdep32.so", False),
        ("dep_data", "DEP_1.0", "libdep32.so", False),
        ("maybe_fn", None, None, True),
    }
    assert {s.name: (s.binding.value, s.visibility) for s in record.defined} == {
        "user_fn": ("global", "default"),
        "prot_fn": ("global", "protected"),
        "table": ("global", "default"),
        "uniq": ("unique", "default"),
    }
    pointers = elf_reader.read_elf_pointers(data)
    assert pointers is not None and pointers.word_size == 4
    assert [text for _, text in pointers.strings] == ["op::name"]


def _through_lief(data: bytes, name: str) -> tuple[BinaryRecord | BinaryError, RelocatedPointers]:
    """What lief answers: read_binary and read_relocated_pointers read every ELF file."""
    return lief_reader.read_binary(data, name), lief_reader.read_relocated_pointers(data)


def _today(data: bytes, name: str) -> tuple[BinaryRecord | BinaryError, RelocatedPointers]:
    """What the reading stack answers: the struct reader, else lief (`by_struct`)."""
    pointers = elf_reader.read_elf_pointers(data) or lief_reader.read_relocated_pointers(data)
    return read_binary(data, name), pointers


def _dynamic_entry_offsets(data: bytes) -> dict[int, int]:
    """File offset of each x86_64 dynamic entry's tag, by tag (the first of each)."""
    (phoff,) = struct.unpack_from("<Q", data, 0x20)
    (phnum,) = struct.unpack_from("<H", data, 0x38)
    for index in range(phnum):
        p_type, _, offset, _, _, filesz = struct.unpack_from("<IIQQQQ", data, phoff + 56 * index)
        if p_type == 2:
            out: dict[int, int] = {}
            for at in range(offset, offset + filesz, 16):
                out.setdefault(struct.unpack_from("<Q", data, at)[0], at)
            return out
    raise AssertionError("no PT_DYNAMIC")


def _patched(data: bytes, offset: int, fmt: str, value: int) -> bytes:
    out = bytearray(data)
    struct.pack_into(fmt, out, offset, value)
    return bytes(out)


def _with_dynamic(data: bytes, tag: int, value: int) -> bytes:
    return _patched(data, _dynamic_entry_offsets(data)[tag] + 8, "<Q", value)


def _retagged(data: bytes, tag: int, new_tag: int) -> bytes:
    return _patched(data, _dynamic_entry_offsets(data)[tag], "<Q", new_tag)


# Files the struct reader must not be sure of: lief reads them its own way.
_UNSURE: dict[str, Callable[[bytes], bytes]] = {
    "cut inside the program headers": lambda d: d[:80],
    "cut inside a segment": lambda d: d[: len(d) // 2],
    "one byte short": lambda d: d[:-1],
    "a program header size that is not the structure's": lambda d: _patched(d, 0x36, "<H", 60),
    "a section header size that is not the structure's": lambda d: _patched(d, 0x3A, "<H", 48),
    "a machine without a table (MIPS)": lambda d: _patched(d, 0x12, "<H", 8),
    "x86_64 claimed as ELF32": lambda d: _patched(d, 4, "<B", 1),
    "x86_64 claimed big-endian": lambda d: _patched(d, 5, "<B", 2),
    "no DT_STRTAB before DT_NULL": lambda d: _retagged(d, 5, 0x6FFF0000),
    "DT_STRTAB outside every segment": lambda d: _with_dynamic(d, 5, 1 << 40),
    "packed Android relocations": lambda d: _retagged(d, 0x6FFFFFF9, 0x60000011),
}


@pytest.mark.parametrize("label", sorted(_UNSURE))
def test_an_inconsistent_file_goes_to_lief_with_todays_answer(
    label: str, built_libs: dict[str, Path]
) -> None:
    data = _UNSURE[label](built_libs["libpkg_comp.so"].read_bytes())
    if label == "packed Android relocations":
        # Only the pointers need relocations: the record is still the struct reader's.
        assert elf_reader.read_elf_pointers(data) is None
    else:
        assert elf_reader.read_elf(data, "libpkg_comp.so") is None
        assert elf_reader.read_elf_pointers(data) is None
    # Through the reader the pipeline calls: exactly lief's answer, record or error.
    assert _today(data, "libpkg_comp.so") == _through_lief(data, "libpkg_comp.so")


def test_a_truncated_file_keeps_its_error_text(built_libs: dict[str, Path]) -> None:
    data = built_libs["libpkg.so"].read_bytes()
    for cut in (64, 80, len(data) // 2, len(data) - 1):
        result = lief_reader.read_binary(data[:cut], "libpkg.so")
        assert isinstance(result, BinaryError)
        assert result.reason.startswith("truncated: "), result.reason
        pointers = lief_reader.read_relocated_pointers(data[:cut])
        assert pointers.unreadable is not None and pointers.unreadable.startswith("truncated: ")


# Counts and sizes a hostile file may carry: every loop stops at the file's end, and the
# answer (the struct reader's or lief's) is lief's.
_HOSTILE: dict[str, Callable[[bytes], bytes]] = {
    "DT_VERNEEDNUM at its largest": lambda d: _with_dynamic(d, 0x6FFFFFFF, (1 << 64) - 1),
    "DT_RELASZ past the file": lambda d: _with_dynamic(d, 8, 1 << 40),
    "DT_PLTRELSZ past the file": lambda d: _with_dynamic(d, 2, 1 << 40),
    "DT_SYMTAB at the file's end": lambda d: _with_dynamic(d, 6, 0x4000),
    "a GNU hash with every bucket count": lambda d: _with_dynamic(d, 0x6FFFFEF5, 0x200),
    "symbol names past the string table": lambda d: _with_dynamic(d, 5, 0x3FF0),
}


@pytest.mark.parametrize("label", sorted(_HOSTILE))
def test_hostile_counts_give_lief_s_answer(label: str, built_libs: dict[str, Path]) -> None:
    data = _HOSTILE[label](built_libs["libpkg_comp.so"].read_bytes())
    assert _today(data, "x.so") == _through_lief(data, "x.so")


def test_bits_flipped_anywhere_give_lief_s_answer(
    built_libs: dict[str, Path], elf_variants: dict[str, Path]
) -> None:
    """Seeded corruption of real libraries: whatever the struct reader makes of a file it
    is sure of is lief's record, and what it is not sure of goes to lief."""
    rng = random.Random(20261201)
    sources = [built_libs["libpkg_versioned.so"], built_libs["libpkg.so"]]
    sources += [elf_variants["libuser32.so"], elf_variants["libpkg_relr.so"]]
    sure = 0
    for source in sources:
        original = source.read_bytes()
        for _ in range(150):
            data = bytearray(original)
            # Mostly inside the headers and dynamic tables, where a flip changes a fact.
            span = len(data) if rng.random() < 0.3 else min(len(data), 4096)
            for _ in range(rng.choice((1, 2, 8))):
                data[rng.randrange(span)] ^= 1 << rng.randrange(8)
            flipped = bytes(data)
            assert _today(flipped, source.name) == _through_lief(flipped, source.name)
            sure += elf_reader.read_elf(flipped, source.name) is not None
    # The comparison is about the struct reader's answers: most flips leave it sure.
    assert sure > len(sources) * 150 // 2


def test_names_that_are_not_utf8_are_kept_as_surrogates(built_libs: dict[str, Path]) -> None:
    data = built_libs["libpkg_versioned.so"].read_bytes()
    at = data.index(b"uses_ver\0")
    bad = data[:at] + b"uses\xffver" + data[at + 8 :]
    record = elf_reader.read_elf(bad, "x.so")
    assert isinstance(record, BinaryRecord)
    assert "uses\udcffver" in {s.name for s in record.defined}
    assert record == lief_reader._read_elf(bad, "x.so")


def test_names_running_to_a_long_end_go_to_lief(built_libs: dict[str, Path]) -> None:
    """Every symbol's name moved into a megabyte without a NUL at the file's end: reading
    them costs the reader more string bytes than the file justifies, so lief (in the
    worker, under its time limit, in a real run) reads the file instead."""
    import lief

    path = built_libs["libpkg_comp.so"]
    original = path.read_bytes()
    parsed = lief.ELF.parse(str(path))
    assert parsed is not None
    dynsym, dynstr = parsed.get_section(".dynsym"), parsed.get_section(".dynstr")
    assert dynsym is not None and dynstr is not None
    data = bytearray(original + b"A" * (1 << 20))
    tail = len(original) - dynstr.offset
    for index in range(1, dynsym.size // 24):
        struct.pack_into("<I", data, dynsym.offset + 24 * index, tail + 7 * index)
    hostile = bytes(data)
    assert elf_reader.read_elf(hostile, "x.so") is None
    assert _today(hostile, "x.so") == _through_lief(hostile, "x.so")
    record = lief_reader.read_binary(hostile, "x.so")
    assert isinstance(record, BinaryRecord)
    assert min(len(name) for name in record.undefined) > 1 << 19
