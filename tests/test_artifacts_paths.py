"""Joining member paths never leaves the artifact's root."""

from __future__ import annotations

import pytest
from shiplint.artifacts.paths import join_within


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
