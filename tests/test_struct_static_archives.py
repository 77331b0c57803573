"""Static archives of ELF objects are read by the struct layer, in this process, as lief's
layer reads them: a wheel shipping a `.a` beside its shared libraries starts no lief."""

from __future__ import annotations

import zipfile
from collections.abc import Iterable, Iterator
from pathlib import Path

from shiplint.artifacts.archive import open_artifact
from shiplint.artifacts.pointers import RelocatedPointers
from shiplint.artifacts.reading.by_struct import StructFirst
from shiplint.artifacts.reading.lief_reader import InProcess, read_binary
from shiplint.artifacts.records import BinaryError, BinaryRecord, FileType

from tests.artifact_libs import built_libs, pack_wheel
from tests.material import other_wheel

__all__ = ["built_libs"]


class _Below:
    """lief's layer in this process, noting what reaches it."""

    def __init__(self) -> None:
        self.asked: list[str] = []
        self._lief = InProcess()

    def binaries(
        self, items: Iterable[tuple[str, bytes]]
    ) -> Iterator[tuple[str, BinaryRecord | BinaryError]]:
        for name, data in items:
            self.asked.append(name)
            yield name, self._lief.binary(data, name)

    def pointers(self, data: bytes, name: str) -> RelocatedPointers:
        return self._lief.pointers(data, name)


def _read(
    path: Path, members: list[str]
) -> tuple[dict[str, BinaryRecord | BinaryError], list[str]]:
    below = _Below()
    with open_artifact(path) as tree:
        reads = {r.member: r.record for r in StructFirst(below).records(tree, members, frozenset())}
    return reads, below.asked


def test_an_archive_of_elf_objects_is_read_here_as_lief_reads_it(
    tmp_path: Path, built_libs: dict[str, Path]
) -> None:
    data = built_libs["libpkg_static.a"].read_bytes()
    path = pack_wheel(
        tmp_path / "pkg-1.0-py3-none-manylinux_2_28_x86_64.whl", {"pkg/lib/libpkg_static.a": data}
    )
    reads, asked = _read(path, ["pkg/lib/libpkg_static.a"])
    assert asked == []
    record = reads["pkg/lib/libpkg_static.a"]
    assert record == read_binary(data, "pkg/lib/libpkg_static.a")
    assert isinstance(record, BinaryRecord) and record.file_type is FileType.STATIC_ARCHIVE
    assert record.archive_members == 1 and record.arches


def test_a_damaged_archive_goes_to_lief_and_keeps_its_words(
    tmp_path: Path, built_libs: dict[str, Path]
) -> None:
    data = built_libs["libpkg_static.a"].read_bytes()
    # The last member runs past the end of the file.
    cut = data[: len(data) - 40]
    path = pack_wheel(
        tmp_path / "pkg-1.0-py3-none-manylinux_2_28_x86_64.whl", {"pkg/lib/libcut.a": cut}
    )
    reads, asked = _read(path, ["pkg/lib/libcut.a"])
    assert asked == ["pkg/lib/libcut.a"]
    assert reads["pkg/lib/libcut.a"] == read_binary(cut, "pkg/lib/libcut.a")
    assert isinstance(reads["pkg/lib/libcut.a"], BinaryError)


def test_the_real_fmt_wheel_needs_no_lief() -> None:
    path = other_wheel("fmt")
    with zipfile.ZipFile(path) as archive:
        binaries = [n for n in archive.namelist() if n.endswith((".a", ".so")) or ".so." in n]
        expected = {n: read_binary(archive.read(n), n) for n in binaries}
    assert any(n.endswith(".a") for n in binaries)
    reads, asked = _read(path, binaries)
    assert asked == []
    assert reads == expected
