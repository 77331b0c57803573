"""The planned tree written for CMake: every member in place, empty placeholders made with
one call where the system allows it, and as before where it does not."""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

import pytest
from shiplint.cmake_eval.layout import PlannedTree

FILES: dict[str, bytes | None] = {
    "pkg/include/a.h": None,
    "pkg/include/sub/b.h": None,
    "pkg/lib/libpkg.so": None,
    "pkg/share/cmake/pkg/pkgConfig.cmake": b"set(pkg_FOUND TRUE)\n",
}


def _written(root: Path) -> dict[str, tuple[int, bytes]]:
    out = {}
    for path in sorted(root.rglob("*")):
        if path.is_file():
            mode = path.lstat().st_mode
            assert stat.S_ISREG(mode), path
            out[path.relative_to(root).as_posix()] = (stat.S_IMODE(mode), path.read_bytes())
    return out


def test_every_member_is_written_as_planned(tmp_path: Path) -> None:
    PlannedTree(tmp_path / "tree", dict(FILES)).write()
    written = _written(tmp_path / "tree")
    assert set(written) == set(FILES)
    assert {name: data for name, (_, data) in written.items()} == {
        name: data or b"" for name, data in FILES.items()
    }


def test_a_system_refusing_mknod_gets_the_same_tree(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    PlannedTree(tmp_path / "mknod", dict(FILES)).write()
    refused: list[str] = []

    def refuse(path: str, mode: int = 0o600, device: int = 0) -> None:
        refused.append(path)
        raise PermissionError(errno.EPERM, os.strerror(errno.EPERM), path)

    monkeypatch.setattr(os, "mknod", refuse)
    PlannedTree(tmp_path / "open", dict(FILES)).write()
    # Refused once, then every placeholder opened as before.
    assert len(refused) == 1
    assert _written(tmp_path / "open") == _written(tmp_path / "mknod")


def test_a_placeholder_already_there_is_kept(tmp_path: Path) -> None:
    tree = PlannedTree(tmp_path / "tree", dict(FILES))
    (tmp_path / "tree" / "pkg" / "lib").mkdir(parents=True)
    (tmp_path / "tree" / "pkg" / "lib" / "libpkg.so").write_bytes(b"")
    tree.write()
    assert set(_written(tmp_path / "tree")) == set(FILES)
