"""Archive bounds: damaged streams, huge tar headers, member counts and sizes, names that no
file system or report can hold, trees deeper than Python's recursion limit."""

from __future__ import annotations

import os
import subprocess
import tarfile
import zipfile
from pathlib import Path

import pytest
from shiplint.artifacts.archive import (
    MAX_DEPTH,
    MAX_TAR_HEADER_BYTES,
    ArtifactError,
    MemberError,
    open_artifact,
)

from tests.hostile import rawzip

LIB = "pkg/lib/libx.so"
DATA = b"\x7fELF" + bytes(range(256)) * 64


def _corrupt_deflate(path: Path) -> Path:
    stream = bytearray(rawzip.deflate(DATA))
    stream[len(stream) // 2 : len(stream) // 2 + 8] = b"\xff" * 8
    entry = rawzip.Entry(LIB.encode(), bytes(stream), rawzip.DEFLATED, size=len(DATA))
    path.write_bytes(rawzip.build([entry]))
    return path


def test_a_corrupt_deflate_stream_is_a_member_error(tmp_path: Path) -> None:
    with open_artifact(_corrupt_deflate(tmp_path / "a.zip")) as tree:
        assert tree.names() == (LIB,)
        with pytest.raises(MemberError, match="cannot be read"):
            tree.read(LIB)
        with pytest.raises(MemberError, match="cannot be read"):
            tree.head(LIB, 4096)


@pytest.mark.parametrize("kind", [tarfile.GNUTYPE_LONGNAME, tarfile.XHDTYPE])
def test_a_huge_tar_extended_header_is_not_read(tmp_path: Path, kind: bytes) -> None:
    info = tarfile.TarInfo("././@LongLink")
    info.type = kind
    info.size = 1_500_000_000
    path = tmp_path / "a.tar"
    # Followed by more than the bound: tarfile would read it all before looking at it.
    path.write_bytes(info.tobuf(tarfile.USTAR_FORMAT) + b"a" * (2 * MAX_TAR_HEADER_BYTES))
    with pytest.raises(ArtifactError, match="1,500,000,000-byte extended header"):
        open_artifact(path)


def test_a_zip_declaring_more_than_the_total_bound_is_refused(tmp_path: Path) -> None:
    # 5,000 members of 1 MiB of zeros each: every one under the ratio check's size, 5 GiB
    # declared in all.
    one = rawzip.deflate(b"\0" * (1024 * 1024 - 1))
    entries = [
        rawzip.Entry(f"pkg/include/h{i}.h".encode(), one, rawzip.DEFLATED, size=1024 * 1024 - 1)
        for i in range(5_000)
    ]
    path = tmp_path / "a.zip"
    path.write_bytes(rawzip.build(entries))
    with pytest.raises(ArtifactError, match="5,000 members declaring"):
        open_artifact(path)


HOSTILE_NAMES = {
    b"pkg/lib/new\nline.so": "control character",
    b"pkg/lib/tab\t.so": "control character",
    b"pkg/lib/esc\x1b[2J.so": "control character",
    b"pkg/lib/" + b"n" * 300 + b".so": "longer than 255 bytes",
    b"pkg/" + b"d/" * 70 + b"deep.so": f"deeper than {MAX_DEPTH}",
    b"pkg/" + b"abcdefgh/" * 120 + b"x.so": "longer than 1024 characters",
}


def test_names_no_file_system_or_report_can_hold_are_rejected(tmp_path: Path) -> None:
    entries = [rawzip.entry(name, DATA) for name in HOSTILE_NAMES]
    entries += [rawzip.entry(LIB, DATA), rawzip.entry(LIB + "/inner.so", DATA)]
    path = tmp_path / "a.zip"
    path.write_bytes(rawzip.build(entries))
    with open_artifact(path) as tree:
        assert tree.names() == (LIB + "/inner.so",)
        reasons = " | ".join(f"{r.member}: {r.reason}" for r in tree.rejected)
    for reason in HOSTILE_NAMES.values():
        assert reason in reasons
    assert f"{LIB}: both a file and a directory" in reasons
    # What a report prints of a rejected name is escaped text.
    assert "\x1b" not in reasons and "\n" not in reasons and "\x00" not in reasons
    assert "esc\\x1b[2J.so" in reasons


def test_a_tar_member_name_that_is_not_utf8_is_rejected_printably(tmp_path: Path) -> None:
    path = tmp_path / "a.tar"
    with tarfile.open(path, "w", format=tarfile.GNU_FORMAT) as tar:
        info = tarfile.TarInfo("pkg/lib/\udcff\udcfe.so")
        tar.addfile(info)
    with open_artifact(path) as tree:
        assert tree.names() == ()
        (rejected,) = tree.rejected
    assert rejected.member == "pkg/lib/\\xff\\xfe.so"
    assert rejected.reason == "name is not valid UTF-8"
    rejected.member.encode("utf-8")  # a SARIF or JSON writer can encode it


def test_a_directory_deeper_than_the_recursion_limit_opens(tmp_path: Path) -> None:
    root = tmp_path / "tree"
    (root / "pkg" / "lib").mkdir(parents=True)
    (root / "pkg" / "lib" / "libx.so").write_bytes(DATA)
    fd = os.open(root / "pkg", os.O_RDONLY)
    try:
        for _ in range(1_200):  # os.walk and shutil recurse once per level
            os.mkdir("d", dir_fd=fd)
            deeper = os.open("d", os.O_RDONLY, dir_fd=fd)
            os.close(fd)
            fd = deeper
    finally:
        os.close(fd)
    try:
        with open_artifact(root) as tree:
            assert tree.names() == ("pkg/lib/libx.so",)
            assert any(f"deeper than {MAX_DEPTH}" in r.reason for r in tree.rejected)
    finally:
        # pytest's own clean-up of tmp_path recurses once per level too.
        subprocess.run(["rm", "-rf", str(root)], check=True)


def test_zipfile_itself_reads_what_the_raw_writer_writes(tmp_path: Path) -> None:
    """The raw writer the hostile tests build archives with makes archives zipfile reads."""
    path = tmp_path / "a.zip"
    path.write_bytes(rawzip.build([rawzip.entry(LIB, DATA, compress=True)]))
    with zipfile.ZipFile(path) as archive:
        assert archive.read(LIB) == DATA
