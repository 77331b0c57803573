"""The struct Mach-O reader gives lief's record, on every Mach-O file of real wheels, and a
binary too large to hold is read through a file with the same result."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest
from shiplint import cache
from shiplint.artifacts import archive, inventory
from shiplint.artifacts.archive import open_artifact
from shiplint.artifacts.headers import MACHO_MAGICS
from shiplint.artifacts.reading import by_struct, lief_reader
from shiplint.artifacts.reading.macho_reader import read_macho
from shiplint.manifest.load import load_manifest

from tests.material import EXAMPLE_MANIFEST, other_wheel, wheel


def _macho_members(path: Path) -> list[tuple[str, bytes]]:
    with zipfile.ZipFile(path) as source:
        out = []
        for info in source.infolist():
            if info.file_size and info.file_size < 64 * 1024 * 1024:
                data = source.read(info)
                if data[:4] in MACHO_MAGICS:
                    out.append((info.filename, data))
        return out


@pytest.mark.parametrize(
    "path",
    [lambda: wheel("1.5.1", "macosx_14_0_arm64"), lambda: other_wheel("mlx")],
    ids=["executorch-1.5.1-macos", "mlx-metal-0.32.4"],
)
def test_the_struct_reader_gives_liefs_record(path: object) -> None:
    members = _macho_members(path())  # type: ignore[operator]
    assert len(members) >= 2
    for name, data in members:
        mine = read_macho(data, name)
        assert mine is not None, name
        assert mine == lief_reader._read_macho(data, name), name


@pytest.mark.parametrize("cut", [3, 40, 4000])
def test_a_cut_short_file_is_left_to_lief(cut: int) -> None:
    name, data = _macho_members(wheel("1.5.1", "macosx_14_0_arm64"))[0]
    assert read_macho(data[:cut], name) is None


@pytest.mark.parametrize("platform", ["macosx_14_0_arm64", "manylinux_2_28_x86_64"])
def test_binaries_read_through_a_file_give_the_same_inventory(
    monkeypatch: pytest.MonkeyPatch, platform: str
) -> None:
    # The Linux wheel's ELF files go to the struct ELF reader over the mapping.
    manifest = load_manifest(EXAMPLE_MANIFEST)
    path = wheel("1.5.1", platform)
    # Nothing kept from an earlier run stands in for a read.
    with cache.refusing_reuse(), open_artifact(path) as tree:
        in_memory = inventory.read_inventory(tree, manifest)
    # Every binary counts as large: copied into a file, mapped, read by the struct readers.
    monkeypatch.setattr(by_struct, "IN_MEMORY_BYTES", 0)
    with cache.refusing_reuse(), open_artifact(path) as tree:
        whole = tree.read

        def read(name: str, limit: int = archive.DEFAULT_READ_LIMIT) -> bytes:
            assert not name.endswith((".dylib", ".so")), f"{name} was read whole"
            return whole(name, limit)

        monkeypatch.setattr(tree, "read", read)
        through_files = inventory.read_inventory(tree, manifest)
    assert through_files.binaries == in_memory.binaries
    assert through_files.unreadable == in_memory.unreadable
    assert len(through_files.binaries) >= 10


def test_hostile_bytes_give_a_record_or_none_never_an_exception() -> None:
    # A real dylib with bytes flipped or header and load command fields set to extremes,
    # as the binaries campaign makes them (seeded: the same 3,000 files every run).
    import random
    import struct

    name, data = next(
        (n, d) for n, d in _macho_members(wheel("1.5.1", "macosx_14_0_arm64"))
        if n.endswith("libexecutorch_etdump.dylib")
    )  # fmt: skip
    rng = random.Random(7)
    extremes = (0, 1, 0x7FFFFFFF, 0xFFFFFFFF, len(data), len(data) - 1)
    for _ in range(3000):
        mutated = bytearray(data)
        if rng.random() < 0.5:
            for _ in range(rng.randint(1, 8)):
                mutated[rng.randrange(0, 4096)] ^= 1 << rng.randrange(8)
        else:
            offset = rng.randrange(16, 4096, 4)
            struct.pack_into("<I", mutated, offset, rng.choice(extremes))
        result = read_macho(bytes(mutated), name)
        assert result is None or result.name == name
