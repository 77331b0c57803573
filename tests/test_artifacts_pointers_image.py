"""Reads at addresses of the loaded image: the region that holds an address, the string at it."""

from __future__ import annotations

from shiplint.artifacts.pointers import Image, Region


def test_strings_and_code_targets_of_disjoint_regions() -> None:
    text = Region(0x1000, b"\x90" * 16, 16, executable=True)
    rodata = Region(0x2000, b"aten::add.out\0tail\0\x01bad\0", 24, executable=False)
    bss = Region(0x3000, b"", 64, executable=False)
    image = Image([rodata, bss, text])
    slots = {0x10: 0x2000, 0x18: 0x2006, 0x20: 0x1004, 0x28: 0x2013, 0x30: 0x3000, 0x38: 0x9999}
    pointers = image.pointers(8, slots)
    # A pointer into the middle of a literal reads its tail; a control byte is no string.
    assert dict(pointers.strings) == {0x2000: "aten::add.out", 0x2006: "add.out"}
    assert pointers.code == frozenset({0x1004})
    assert pointers.slots == tuple(sorted(slots.items()))
    assert image.word(0x3008, 8) == 0  # bss reads as zeros
    assert image.word(0x0FFF, 8) is None
    assert image.word(0x1010, 8) is None  # one past the end of text


def test_overlapping_regions_answer_from_the_first_by_start() -> None:
    # Sections of a hostile file may overlap; the answer is the lowest-starting holder.
    low = Region(0x100, b"low\0" + bytes(60), 64, executable=False)
    high = Region(0x120, b"high\0" + bytes(59), 64, executable=True)
    image = Image([high, low])
    assert image.string(0x120) is None  # inside `low`, which holds zeros there
    assert not image.executable(0x130)
    assert image.executable(0x150)  # past `low`, inside `high`
    assert image.string(0x100) == "low"
