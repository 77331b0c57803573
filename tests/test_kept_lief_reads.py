"""What lief read of a wheel's member (Mach-O, PE, an ELF file the struct reader declines)
is kept under the member's fingerprint and the installed lief's identity, like the struct
reader's answers: a later reading gets the same records and pointers without asking lief,
another lief or a damaged entry reads again, and an answer about the reading rather than
the bytes (a worker crash, an exception inside lief) is never kept."""

from __future__ import annotations

import struct
from collections.abc import Iterable, Iterator
from pathlib import Path

import pytest
from shiplint import cache
from shiplint.artifacts.archive import open_artifact
from shiplint.artifacts.inventory import read_inventory
from shiplint.artifacts.model import Inventory
from shiplint.artifacts.pointers import RelocatedPointers, unreadable_pointers
from shiplint.artifacts.reading import Reader, elf_reader
from shiplint.artifacts.reading import kept as kept_reads
from shiplint.artifacts.reading.lief_reader import InProcess
from shiplint.artifacts.reading.session import lief_expected
from shiplint.artifacts.records import BinaryError, BinaryRecord
from shiplint.manifest.load import load_manifest
from shiplint.manifest.model import Manifest
from shiplint.operators.artifact import read_operators
from shiplint.operators.model import OperatorRegistrations

from tests.artifact_libs import built_libs, pack_wheel
from tests.builders import library, manifest
from tests.material import EXAMPLE_MANIFEST, REPO, other_wheel, wheel

__all__ = ["built_libs"]


def _wheel(name: str) -> tuple[Path, Manifest]:
    """A real wheel lief reads, and its example's manifest."""
    if name == "mlx-metal":
        return other_wheel("mlx"), load_manifest(REPO / "examples" / "mlx" / "shiplint.yaml")
    platform = {"executorch-macos": "macosx_14_0_arm64", "executorch-windows": "win_amd64"}
    return wheel("1.5.1", platform[name]), load_manifest(EXAMPLE_MANIFEST)


@pytest.fixture(autouse=True)
def _own_user_cache(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A user cache of this test's own: what is kept, and read back, is this test's."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "user-cache"))


class _Counting(Reader):
    """The reading stack over lief in this process (real lief), noting each file lief
    is asked to read."""

    def __init__(self) -> None:
        self.asked: list[str] = []
        self.pointed: list[str] = []
        super().__init__(_CountingLief(self))


class _CountingLief:
    def __init__(self, counts: _Counting) -> None:
        self._counts = counts
        self._lief = InProcess()

    def binaries(
        self, items: Iterable[tuple[str, bytes]]
    ) -> Iterator[tuple[str, BinaryRecord | BinaryError]]:
        for name, data in items:
            self._counts.asked.append(name)
            yield from self._lief.binaries([(name, data)])

    def pointers(self, data: bytes, name: str) -> RelocatedPointers:
        self._counts.asked.append(name)
        self._counts.pointed.append(name)
        return self._lief.pointers(data, name)


def _read(
    path: Path, the_manifest: Manifest, reader: Reader
) -> tuple[Inventory, list[OperatorRegistrations]]:
    with open_artifact(path) as tree:
        inventory = read_inventory(tree, the_manifest, reader)
        return inventory, read_operators(tree, inventory, the_manifest, reader)


def _entries(kind: str) -> list[Path]:
    directory = cache.cache_dir() / kind
    return sorted(directory.iterdir()) if directory.is_dir() else []


@pytest.mark.parametrize("name", ["executorch-macos", "executorch-windows", "mlx-metal"])
def test_kept_lief_reads_equal_fresh_reads_of_a_real_wheel(name: str) -> None:
    path, the_manifest = _wheel(name)
    cold = _Counting()
    first = _read(path, the_manifest, cold)
    assert cold.asked, "lief read nothing: the wheel tests nothing here"
    # One entry per distinct member lief read (byte-identical members share one).
    read = {b.name for b in first[0].binaries} & set(cold.asked)
    assert 0 < len(_entries("lief-records")) <= len(read)
    warm = _Counting()
    assert _read(path, the_manifest, warm) == first
    assert warm.asked == []
    # --no-cache: lief reads every file again, and gives what was kept.
    fresh = _Counting()
    with cache.refusing_reuse():
        assert _read(path, the_manifest, fresh) == first
    assert sorted(fresh.asked) == sorted(cold.asked)


def test_the_operator_area_s_lief_pointers_are_kept() -> None:
    path, the_manifest = wheel("1.5.1", "macosx_14_0_arm64"), load_manifest(EXAMPLE_MANIFEST)
    cold = _Counting()
    first = _read(path, the_manifest, cold)
    assert 0 < len(_entries("lief-pointers")) <= len(cold.pointed)
    assert any(lib.operators for lib in first[1][0].libraries)  # tables read from them
    warm = _Counting()
    assert _read(path, the_manifest, warm) == first
    assert warm.pointed == []


def test_another_lief_reads_again(monkeypatch: pytest.MonkeyPatch) -> None:
    path, the_manifest = wheel("1.5.1", "win_amd64"), load_manifest(EXAMPLE_MANIFEST)
    first = _read(path, the_manifest, _Counting())
    assert b"lief-" in kept_reads._installed_lief()  # its version, from its metadata's name
    # Another installed lief: other files (a version, a size, a time).
    monkeypatch.setattr(kept_reads, "_installed_lief", lambda: b"lief-0.0.0.dist-info\0other")
    kept_reads._lief_identity.cache_clear()
    try:
        again = _Counting()
        assert _read(path, the_manifest, again) == first
        assert again.asked
    finally:
        kept_reads._lief_identity.cache_clear()


def test_a_damaged_lief_entry_reads_again() -> None:
    path, the_manifest = wheel("1.5.1", "macosx_14_0_arm64"), load_manifest(EXAMPLE_MANIFEST)
    first = _read(path, the_manifest, _Counting())
    for kind in ("lief-records", "lief-pointers"):
        for entry in _entries(kind):
            # Payloads that pass the cache's own digest but are not kept answers.
            cache.write(kind, entry.name, b"not marshal data")
    again = _Counting()
    assert _read(path, the_manifest, again) == first
    assert again.asked


def test_what_lief_finds_wrong_with_the_bytes_is_kept_as_a_fresh_read_says_it(
    tmp_path: Path,
) -> None:
    with open_artifact(wheel("1.5.1", "macosx_14_0_arm64")) as tree:
        macho = tree.read("executorch/lib/libexecutorch.dylib")
    with open_artifact(wheel("1.5.1", "win_amd64")) as tree:
        pe = tree.read(next(m for m in tree.names() if m.endswith(".dll")))
    # Cut short, and a PE whose header offset points past the file.
    damaged = {
        "pkg/lib/libcut.dylib": macho[:4000],
        "pkg/lib/cut.dll": pe[:3000],
        "pkg/lib/nowhere.dll": pe[:0x3C] + struct.pack("<I", len(pe) + 16) + pe[0x40:4096],
    }
    path = pack_wheel(tmp_path / "pkg-1.0-py3-none-any.whl", damaged)
    fresh = {name: InProcess().binary(data, name) for name, data in damaged.items()}
    assert all(isinstance(error, BinaryError) for error in fresh.values())
    the_manifest = manifest((library("pkg_runtime"),))
    cold, warm = _Counting(), _Counting()
    with open_artifact(path) as tree:
        first = read_inventory(tree, the_manifest, cold)
        assert read_inventory(tree, the_manifest, warm) == first
    kept = {u.member: u.reason for u in first.unreadable}
    declined = sorted(name for name in damaged if elf_reader.read_elf(damaged[name], name) is None)
    assert sorted(cold.asked) == declined and warm.asked == []
    assert kept == {name: error.reason for name, error in fresh.items()}  # type: ignore[union-attr]
    # Every file lief read is kept, its errors too: the reading noted that the next run
    # needs no worker up front.
    assert not lief_expected([path])


def test_a_wheel_with_an_error_not_kept_still_expects_lief(tmp_path: Path) -> None:
    with open_artifact(wheel("1.5.1", "win_amd64")) as tree:
        pe = tree.read(next(m for m in tree.names() if m.endswith(".dll")))
    path = pack_wheel(tmp_path / "pkg-1.0-py3-none-any.whl", {"pkg/lib/cut.dll": pe[:3000]})
    assert lief_expected([path])
    with open_artifact(path) as tree:
        # A member the archive cannot give: read again next time, lief likely with it.
        kept_reads.note_lief_reads_kept(tree, ["pkg/lib/cut.dll", "pkg/lib/not-a-member.dll"])
        assert lief_expected([path])
        read_inventory(tree, manifest((library("pkg_runtime"),)), _Counting())
    assert not lief_expected([path])


def test_an_answer_about_the_reading_not_the_bytes_is_never_kept() -> None:
    fingerprint = bytes(32)
    crashed = "lief crashed reading this file (killed by SIGSEGV)"
    kept_reads.keep_record(
        fingerprint, BinaryError("x", crashed, transient=True), None, by_lief=True
    )
    kept_reads.keep_pointers(
        fingerprint, unreadable_pointers(crashed, transient=True), by_lief=True
    )
    assert _entries("lief-records") == _entries("lief-pointers") == []
    # The same answers about the bytes are kept, and read back.
    kept_reads.keep_record(fingerprint, BinaryError("x", "truncated"), None, by_lief=True)
    kept_reads.keep_pointers(fingerprint, unreadable_pointers("not read"), by_lief=True)
    kept = kept_reads.kept_record(fingerprint, "y", by_lief=True)
    assert kept is not None and kept.record == BinaryError("y", "truncated")
    assert kept_reads.kept_pointers(fingerprint, by_lief=True) == unreadable_pointers("not read")
    # The struct reader's kinds never hold an error: it reads or declines.
    assert kept_reads.kept_record(fingerprint, "y") is None


def test_an_elf_file_the_struct_reader_declines_is_kept_as_lief_read_it(
    tmp_path: Path, built_libs: dict[str, Path]
) -> None:
    data = built_libs["libpkg_comp.so"].read_bytes()
    # A section header size that is not the structure's: the struct reader declines it.
    declined = data[:0x3A] + struct.pack("<H", 48) + data[0x3C:]
    assert elf_reader.read_elf(declined, "x.so") is None
    source = tmp_path / "libpkg_comp.so"
    source.write_bytes(declined)
    path = pack_wheel(tmp_path / "pkg-1.0-py3-none-manylinux_2_28_x86_64.whl", {
        "pkg/lib/libpkg_comp.so": source,
    })  # fmt: skip
    the_manifest = manifest((library("pkg_comp"),))
    cold, warm = _Counting(), _Counting()
    with open_artifact(path) as tree:
        first = read_inventory(tree, the_manifest, cold)
        assert read_inventory(tree, the_manifest, warm) == first
    assert (cold.asked, warm.asked) == (["pkg/lib/libpkg_comp.so"], [])
    assert len(_entries("lief-records")) == 1
    assert _entries("elf-records") == []


def test_a_wheel_whose_lief_reads_are_kept_expects_no_lief(tmp_path: Path) -> None:
    path, the_manifest = wheel("1.5.1", "macosx_14_0_arm64"), load_manifest(EXAMPLE_MANIFEST)
    assert lief_expected([path])
    with open_artifact(path) as tree:
        read_inventory(tree, the_manifest, _Counting())
    assert not lief_expected([path])
    # A guess per file: another file is expected to need lief, and so is the same one
    # with --no-cache.
    assert lief_expected([path, wheel("1.5.1", "win_amd64")])
    with cache.refusing_reuse():
        assert lief_expected([path])
    # A Linux wheel is never expected to need lief: nothing is noted for it.
    noted = _entries("lief-kept")
    with open_artifact(wheel("1.5.1", "manylinux_2_28_x86_64")) as tree:
        kept_reads.note_lief_reads_kept(tree, ())
    assert _entries("lief-kept") == noted != []
