"""An archive's member fingerprints kept under the archive file's digest: a warm run over
an archive it has seen hashes no member, and nothing kept ever stands for other bytes."""

from __future__ import annotations

import marshal
import os
import zipfile
from pathlib import Path

import pytest
from shiplint import cache
from shiplint.artifacts.archive import open_artifact
from shiplint.artifacts.fingerprint import zip_member_fingerprint

from tests.cache_forgery import WAYS, forge

_KIND = "zip-fingerprints"
_NAME = "pkg/lib/libx.so"
_DATA = b"\x7fELF" + bytes(range(256)) * 64


@pytest.fixture(autouse=True)
def _own_user_cache(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "user-cache"))


def _zip(path: Path, data: bytes) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(zipfile.ZipInfo("pkg/README", (2024, 1, 1, 0, 0, 0)), b"text" * 50)
        archive.writestr(zipfile.ZipInfo(_NAME, (2024, 1, 1, 0, 0, 0)), data)
    return path


def _taken(path: Path) -> bytes | None:
    """The fingerprint as taken from the member's bytes, nothing kept involved."""
    with zipfile.ZipFile(path) as archive, path.open("rb") as stream:
        return zip_member_fingerprint(stream, archive.getinfo(_NAME))


def _fingerprint(path: Path) -> bytes | None:
    with open_artifact(path) as tree:
        return tree.fingerprint(_NAME)


def _entries() -> list[Path]:
    directory = cache.cache_dir() / _KIND
    return sorted(directory.iterdir()) if directory.is_dir() else []


def test_a_second_run_answers_from_the_kept_fingerprints(tmp_path: Path) -> None:
    path = _zip(tmp_path / "a.whl", _DATA)
    first = _fingerprint(path)
    assert first == _taken(path) is not None
    [entry] = _entries()
    before = entry.stat()
    assert _fingerprint(path) == first
    # Nothing new was taken, so the entry was not written again.
    after = entry.stat()
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)


def test_an_archive_written_again_is_fingerprinted_again(tmp_path: Path) -> None:
    path = _zip(tmp_path / "a.whl", _DATA)
    first = _fingerprint(path)
    times = path.stat()
    # Other bytes of the same size, the modification time put back: the change time
    # (set by the kernel alone) still tells the file apart.
    changed = bytearray(_DATA)
    changed[100] ^= 0xFF
    _zip(path, bytes(changed))
    os.utime(path, ns=(times.st_atime_ns, times.st_mtime_ns))
    assert path.stat().st_size == times.st_size
    assert _fingerprint(path) == _taken(path) != first


@pytest.mark.parametrize("way", WAYS)
def test_a_forged_entry_is_a_miss(tmp_path: Path, way: str) -> None:
    path = _zip(tmp_path / "a.whl", _DATA)
    honest = _fingerprint(path)
    [entry] = _entries()
    # Another member's fingerprint at this member's offset, as a forger would plant it.
    with zipfile.ZipFile(path) as archive:
        offset = archive.getinfo(_NAME).header_offset
    forge(_KIND, entry.name, marshal.dumps([(offset, b"\x01" * 32)]), way)
    assert _fingerprint(path) == honest
