"""What the struct ELF reader made of a wheel's member is kept under the member's
fingerprint, and a later run reading the same member reads it back instead: the same
records and pointers, anew for other bytes (what lief reads: test_kept_lief_reads)."""

from __future__ import annotations

import dataclasses
import stat
import struct
import tarfile
import zipfile
from pathlib import Path

import pytest
from shiplint import cache
from shiplint.artifacts.archive import MemberError, open_artifact
from shiplint.artifacts.fingerprint import zip_member_fingerprint
from shiplint.artifacts.inventory import read_inventory
from shiplint.artifacts.model import Inventory
from shiplint.artifacts.prefix import PrefixTree, member_fingerprint
from shiplint.artifacts.reading import IN_PROCESS, elf_reader, read_binary
from shiplint.artifacts.reading.kept import keep_record
from shiplint.manifest.load import load_manifest
from shiplint.manifest.model import Manifest
from shiplint.operators.artifact import read_operators

from tests.artifact_libs import built_libs, pack_wheel
from tests.builders import library, manifest
from tests.material import EXAMPLE_MANIFEST, wheel

__all__ = ["built_libs"]

_WHEEL = "pkg-1.0-py3-none-manylinux_2_28_x86_64.whl"


@pytest.fixture(autouse=True)
def _own_user_cache(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """A user cache of this test's own: what is kept, and read back, is this test's."""
    root = tmp_path / "user-cache"
    monkeypatch.setenv("XDG_CACHE_HOME", str(root))
    return root / "shiplint"


def _inventory(path: Path, the_manifest: Manifest) -> Inventory:
    with open_artifact(path) as tree:
        return read_inventory(tree, the_manifest, IN_PROCESS)


def _entries(kind: str) -> list[Path]:
    directory = cache.cache_dir() / kind
    return sorted(directory.iterdir()) if directory.is_dir() else []


def _fixed_zip(path: Path, members: list[tuple[str, bytes]]) -> Path:
    """A zip whose members carry a fixed time, so equal members are equal byte for byte."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in members:
            archive.writestr(zipfile.ZipInfo(name, (2024, 1, 1, 0, 0, 0)), data)
    return path


def test_the_real_wheel_reads_the_same_from_what_was_kept() -> None:
    et_manifest = load_manifest(EXAMPLE_MANIFEST)
    path = wheel("1.5.1", "manylinux_2_28_x86_64")
    first = _inventory(path, et_manifest)
    # Every binary of this wheel is one the struct reader reads, and each was kept.
    assert len(_entries("elf-records")) == len(first.binaries) > 10
    assert _inventory(path, et_manifest) == first
    with open_artifact(path) as tree:
        fresh = read_operators(tree, first, et_manifest, IN_PROCESS)
        assert len(_entries("elf-pointers")) == len(first.binaries)
        assert read_operators(tree, first, et_manifest, IN_PROCESS) == fresh
        for record in first.binaries:
            fingerprint = member_fingerprint(tree, record.name)
            assert fingerprint is not None
            data = tree.read(record.name)
            assert elf_reader.read_elf(data, record.name) == record
    with cache.refusing_reuse():
        assert _inventory(path, et_manifest) == first


def test_a_kept_record_stands_for_reading_the_member(
    tmp_path: Path, built_libs: dict[str, Path]
) -> None:
    path = pack_wheel(tmp_path / _WHEEL, {"pkg/lib/libpkg.so": built_libs["libpkg.so"]})
    the_manifest = manifest((library("pkg_runtime"),))
    (record,) = _inventory(path, the_manifest).binaries
    assert record.soname == "libpkg.so"
    # What is kept under the member's fingerprint is what the next run reads: shown by
    # keeping a record with another SONAME, which no read of the bytes would give.
    with open_artifact(path) as tree:
        fingerprint = member_fingerprint(tree, "pkg/lib/libpkg.so")
    assert fingerprint is not None
    keep_record(fingerprint, dataclasses.replace(record, soname="libkept.so"), None)
    (kept,) = _inventory(path, the_manifest).binaries
    assert kept == dataclasses.replace(record, soname="libkept.so")
    # --no-cache reads the member again.
    with cache.refusing_reuse():
        assert _inventory(path, the_manifest).binaries == (record,)


def test_a_member_with_other_bytes_is_read_anew(
    tmp_path: Path, built_libs: dict[str, Path]
) -> None:
    the_manifest = manifest((library("pkg_runtime"),))
    name = "pkg/lib/libpkg.so"
    for source in ("libpkg.so", "libpkg_comp.so"):
        (tmp_path / source).mkdir()
        path = _fixed_zip(tmp_path / source / _WHEEL, [(name, built_libs[source].read_bytes())])
        (record,) = _inventory(path, the_manifest).binaries
        assert record == read_binary(built_libs[source].read_bytes(), name)
    assert len(_entries("elf-records")) == 2


def test_a_damaged_entry_is_read_anew(tmp_path: Path, built_libs: dict[str, Path]) -> None:
    path = pack_wheel(tmp_path / _WHEEL, {"pkg/lib/libpkg.so": built_libs["libpkg.so"]})
    the_manifest = manifest((library("pkg_runtime"),))
    first = _inventory(path, the_manifest)
    (entry,) = _entries("elf-records")
    # A payload that passes the cache's own digest but is not a kept record.
    cache.write("elf-records", entry.name, b"not marshal data")
    assert _inventory(path, the_manifest) == first


def test_version_sibling_copies_are_found_from_what_was_kept(
    tmp_path: Path, built_libs: dict[str, Path]
) -> None:
    data = built_libs["libpkg.so"]
    path = pack_wheel(tmp_path / _WHEEL, {"pkg/lib/libpkg.so": data, "pkg/lib/libpkg.so.1": data})
    the_manifest = manifest((library("pkg_runtime"),))
    first = _inventory(path, the_manifest)
    assert first.copies == (("pkg/lib/libpkg.so.1", "pkg/lib/libpkg.so"),)
    assert _inventory(path, the_manifest) == first


def test_a_file_the_struct_reader_declines_is_kept_as_lief_read_it_not_as_struct(
    tmp_path: Path, built_libs: dict[str, Path]
) -> None:
    data = built_libs["libpkg_comp.so"].read_bytes()
    # A section header size that is not the structure's: lief reads it, every run.
    declined = data[:0x3A] + struct.pack("<H", 48) + data[0x3C:]
    assert elf_reader.read_elf(declined, "x.so") is None
    path = pack_wheel(tmp_path / _WHEEL, {"pkg/lib/libpkg_comp.so": declined})
    the_manifest = manifest((library("pkg_comp"),))
    model = _inventory(path, the_manifest)
    assert model.binaries == (read_binary(declined, "pkg/lib/libpkg_comp.so"),)
    assert _entries("elf-records") == []
    assert len(_entries("lief-records")) == 1


def test_equal_members_have_equal_fingerprints_wherever_they_lie(tmp_path: Path) -> None:
    member = ("pkg/lib/libx.so", b"\x7fELF" + bytes(range(256)) * 64)
    one = _fixed_zip(tmp_path / "one.zip", [member])
    other = _fixed_zip(tmp_path / "other.zip", [("pkg/README", b"text" * 100), member])
    with open_artifact(one) as first, open_artifact(other) as second:
        assert first.fingerprint(member[0]) is not None
        assert first.fingerprint(member[0]) == second.fingerprint(member[0])
        assert second.fingerprint("pkg/README") != second.fingerprint(member[0])


def test_a_changed_byte_or_crc_changes_the_fingerprint(tmp_path: Path) -> None:
    name, data = "pkg/lib/libx.so", bytes(range(256)) * 64
    good = _fixed_zip(tmp_path / "good.zip", [(name, data)]).read_bytes()
    with zipfile.ZipFile(tmp_path / "good.zip") as archive:
        info = archive.getinfo(name)
    start = info.header_offset + 30 + len(name)
    # One compressed byte changed; and the central directory's CRC-32 changed.
    flipped = bytearray(good)
    flipped[start + 5] ^= 0xFF
    central = good.rindex(b"PK\x01\x02")
    wrong_crc = bytearray(good)
    struct.pack_into("<I", wrong_crc, central + 16, info.CRC ^ 1)
    (tmp_path / "flipped.zip").write_bytes(flipped)
    (tmp_path / "crc.zip").write_bytes(wrong_crc)
    with open_artifact(tmp_path / "good.zip") as tree:
        expected = tree.fingerprint(name)
        assert tree.read(name) == data
    for damaged in ("flipped.zip", "crc.zip"):
        with open_artifact(tmp_path / damaged) as tree:
            assert tree.fingerprint(name) not in (None, expected)
            with pytest.raises(MemberError):
                tree.read(name)


def test_tar_and_directory_members_have_no_fingerprint(tmp_path: Path) -> None:
    root = tmp_path / "tree"
    (root / "lib").mkdir(parents=True)
    (root / "lib" / "libx.so").write_bytes(b"\x7fELF")
    with tarfile.open(tmp_path / "x.tar.gz", "w:gz") as archive:
        archive.add(root / "lib" / "libx.so", "lib/libx.so")
    for path in (root, tmp_path / "x.tar.gz"):
        with open_artifact(path) as tree:
            assert member_fingerprint(tree, "lib/libx.so") is None


def test_a_link_reads_the_kept_record_under_its_own_name(
    tmp_path: Path, built_libs: dict[str, Path]
) -> None:
    # A symlink member reads its target's bytes: the same fingerprint, another name.
    path = tmp_path / _WHEEL
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("pkg/lib/libpkg.so", built_libs["libpkg.so"].read_bytes())
        link = zipfile.ZipInfo("pkg/lib/libpkg.so.1")
        link.external_attr = (stat.S_IFLNK | 0o777) << 16
        archive.writestr(link, "libpkg.so")
    the_manifest = manifest((library("pkg_runtime"),))
    with open_artifact(path) as tree:
        assert tree.fingerprint("pkg/lib/libpkg.so.1") == tree.fingerprint("pkg/lib/libpkg.so")
    with cache.refusing_reuse():
        fresh = _inventory(path, the_manifest)
    assert [record.name for record in fresh.binaries] == ["pkg/lib/libpkg.so"]
    assert fresh.copies == (("pkg/lib/libpkg.so.1", "pkg/lib/libpkg.so"),)
    assert _inventory(path, the_manifest) == fresh
    assert _inventory(path, the_manifest) == fresh


def test_a_header_offset_past_the_file_has_no_fingerprint(tmp_path: Path) -> None:
    name = "pkg/lib/libx.so"
    good = _fixed_zip(tmp_path / "good.zip", [(name, b"\x7fELF" * 100)]).read_bytes()
    hostile = bytearray(good)
    # The central directory's relative offset of the local header, pointed past the end.
    struct.pack_into("<I", hostile, good.rindex(b"PK\x01\x02") + 42, 0xFFFFFFF0)
    (tmp_path / "hostile.zip").write_bytes(hostile)
    with open_artifact(tmp_path / "hostile.zip") as tree:
        assert tree.fingerprint(name) is None
        with pytest.raises(MemberError):
            tree.read(name)


@pytest.mark.parametrize("offset", [-5, 1 << 70])
def test_an_offset_no_seek_takes_is_refused_as_the_tree_expects(
    tmp_path: Path, offset: int
) -> None:
    """ZipTree.fingerprint turns these errors into no fingerprint (then the read says what
    is wrong); anything else would escape it."""
    path = _fixed_zip(tmp_path / "x.zip", [("pkg/lib/libx.so", b"\x7fELF" * 100)])
    with zipfile.ZipFile(path) as archive, open(path, "rb") as stream:
        info = archive.getinfo("pkg/lib/libx.so")
        info.header_offset = offset
        with pytest.raises((OSError, ValueError, OverflowError)):
            zip_member_fingerprint(stream, info)


def test_a_companion_member_has_its_own_wheel_s_fingerprint(
    tmp_path: Path, built_libs: dict[str, Path]
) -> None:
    runtime = pack_wheel(
        tmp_path / "pkg-1.0-py3-none-manylinux_2_28_x86_64.whl",
        {"pkg-1.0.data/data/lib/libpkg.so": built_libs["libpkg.so"]},
    )
    devel = pack_wheel(
        tmp_path / "pkg_devel-1.0-py3-none-manylinux_2_28_x86_64.whl",
        {"pkg_devel-1.0.data/data/lib/libpkg_comp.so": built_libs["libpkg_comp.so"]},
    )
    with open_artifact(devel) as primary, open_artifact(runtime) as companion:
        prefix = PrefixTree(primary, [companion])
        (origin,) = prefix.origins()
        merged, _, member = origin
        assert merged == "pkg_devel-1.0.data/data/lib/libpkg.so"
        assert member_fingerprint(prefix, merged) == companion.fingerprint(member) is not None
        own = "pkg_devel-1.0.data/data/lib/libpkg_comp.so"
        assert member_fingerprint(prefix, own) == primary.fingerprint(own) is not None
