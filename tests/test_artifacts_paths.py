"""Joining member paths never leaves the artifact's root."""

from __future__ import annotations

import pytest
from shiplint.artifacts.paths import join_within, parent_directories


@pytest.mark.parametrize(
    ("base", "relative", "expected"),
    [
        ("pkg/lib", "../src/lib", "pkg/src/lib"),
        ("pkg/lib", ".", "pkg/lib"),
        (".", "a.so", "a.so"),
        ("", "x/./y//z", "x/y/z"),
        ("pkg", "..", ""),
        ("pkg", "../..", None),
        ("", "..\\escape", None),
        ("pkg\\lib", "b.dll", "pkg/lib/b.dll"),
    ],
)
def test_join_within(base: str, relative: str, expected: str | None) -> None:
    assert join_within(base, relative) == expected


@pytest.mark.parametrize(
    ("names", "expected"),
    [
        ([], set()),
        (["top.so"], set()),
        (["a/b/c.so"], {"a", "a/b"}),
        # A shallower member after a deeper one still adds nothing twice, misses nothing.
        (["a/b/c/d.so", "a/x.so", "a/b/y.so", "e/f.so"], {"a", "a/b", "a/b/c", "e"}),
        (["a/b/c.so", "a/bc/d.so"], {"a", "a/b", "a/bc"}),
    ],
)
def test_parent_directories(names: list[str], expected: set[str]) -> None:
    assert parent_directories(names) == expected


def test_parent_directories_of_a_real_wheel_match_every_slash() -> None:
    from shiplint.artifacts.archive import open_artifact

    from tests.material import wheel

    with open_artifact(wheel("1.5.1", "x86_64")) as tree:
        names = tree.names()
    every = {name[:i] for name in names for i, c in enumerate(name) if c == "/"}
    assert len(every) > 100
    assert parent_directories(names) == every
