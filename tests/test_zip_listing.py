"""A zip's listing kept under the archive file's digest: a second opening reads no central
directory and sees the same tree; a kept entry of another form, or another archive's,
is never what a tree is listed from."""

from __future__ import annotations

import marshal
import os
import zipfile
from pathlib import Path

import pytest
from shiplint import cache
from shiplint.artifacts import zip_listing
from shiplint.artifacts.archive import ArtifactTree, MemberError, Rejected, ZipTree, open_artifact
from shiplint.artifacts.file_digest import file_digest

from tests.hostile import rawzip
from tests.material import wheel

LINK = 0o120777


# A user cache and a key of this module's tests' own.
pytestmark = pytest.mark.usefixtures("fresh_user_cache")


@pytest.fixture
def directory_reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Each reading of a central directory by zipfile, by the archive's file name."""
    reads: list[str] = []
    real = zipfile.ZipFile._RealGetContents  # type: ignore[attr-defined]

    def counted(self: zipfile.ZipFile) -> None:
        reads.append(Path(str(self.filename)).name)
        real(self)

    monkeypatch.setattr(zipfile.ZipFile, "_RealGetContents", counted)
    return reads


def _hostile(path: Path) -> Path:
    """Members a tree lists, rejects and links, each kind once."""
    entries = [
        rawzip.entry("pkg/lib/libx.so.1", b"\x7fELF" + b"x" * 100, compress=True),
        rawzip.entry("pkg/lib/libx.so", b"libx.so.1", mode=LINK),
        rawzip.entry("pkg/lib/escape.so", b"../../../etc/passwd", mode=LINK),
        rawzip.entry("pkg/../outside.txt", b"no"),
        rawzip.entry("pkg/fifo", b"", mode=0o010644),
        rawzip.entry("pkg/dup.txt", b"first"),
        rawzip.entry("pkg/dup.txt", b"second"),
        rawzip.entry("pkg/share/cmake/pkgConfig.cmake", b"set(pkg_FOUND TRUE)\n", compress=True),
    ]
    path.write_bytes(rawzip.build(entries))
    return path


Seen = tuple[tuple[str, ...], dict[str, object], tuple[Rejected, ...]]


def _seen(tree: ArtifactTree) -> Seen:
    """Everything a rule can learn of the tree: names, sizes, bytes, rejections."""
    read: dict[str, object] = {}
    for name in tree.names():
        try:
            read[name] = (tree.size(name), tree.read(name), tree.head(name, 4))
        except MemberError as exc:
            read[name] = exc.reason
    return tree.names(), read, tree.rejected


def test_a_second_opening_reads_no_central_directory_and_sees_the_same_tree(
    tmp_path: Path, directory_reads: list[str]
) -> None:
    path = _hostile(tmp_path / "pkg-1.0-py3-none-any.whl")
    with open_artifact(path) as tree:
        first = _seen(tree)
    assert directory_reads == [path.name]
    directory_reads.clear()
    with open_artifact(path) as tree:
        names = tree.names()
        # Plain members are read without zipfile.
        assert tree.read("pkg/share/cmake/pkgConfig.cmake") == b"set(pkg_FOUND TRUE)\n"
        assert tree.read("pkg/lib/libx.so")[:4] == b"\x7fELF"
        assert directory_reads == []
        assert (names, *_seen(tree)[1:]) == first
    assert any("passwd" in r.reason for r in first[2])
    assert any("duplicate" in r.reason for r in first[2])


def test_a_real_wheel_lists_the_same_from_its_kept_listing(directory_reads: list[str]) -> None:
    path = wheel("1.5.1", "manylinux_2_28_x86_64")
    with open_artifact(path) as tree:
        assert isinstance(tree, ZipTree)
        names, sizes = tree.names(), [tree.size(n) for n in tree.names()]
        problems = tree.integrity()
    directory_reads.clear()
    with open_artifact(path) as tree:
        assert isinstance(tree, ZipTree)
        assert tree.names() == names
        assert [tree.size(n) for n in names] == sizes
        assert tree.integrity() == problems
        config = "executorch/share/cmake/executorch-config.cmake"
        assert tree.read(config).startswith(b"#")
    assert directory_reads == []


def test_a_rewritten_archive_is_listed_again(tmp_path: Path, directory_reads: list[str]) -> None:
    path = tmp_path / "pkg-1.0-py3-none-any.whl"
    path.write_bytes(rawzip.build([rawzip.entry("pkg/a.txt", b"a")]))
    with open_artifact(path) as tree:
        assert tree.names() == ("pkg/a.txt",)
    stat = path.stat()
    path.write_bytes(rawzip.build([rawzip.entry("pkg/b.txt", b"b")]))
    # Its time put back: the change time and the bytes still tell.
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    with open_artifact(path) as tree:
        assert tree.names() == ("pkg/b.txt",)
        assert tree.read("pkg/b.txt") == b"b"
    assert directory_reads == [path.name, path.name]


@pytest.mark.parametrize(
    "payload",
    [
        pytest.param(b"", id="empty"),
        pytest.param(b"\xff\x00garbage", id="not-marshal"),
        pytest.param(marshal.dumps(None), id="none"),
        pytest.param(marshal.dumps(([("pkg/a.txt", (0,) * 10)], [], [])), id="wrong-fields"),
        pytest.param(
            marshal.dumps(([("pkg/a.txt", (0, "a", "a", 0, 1, 1, 0, 0, 0))], [], [])),
            id="an-entry-short-of-a-field",
        ),
        pytest.param(
            marshal.dumps(([("pkg/a.txt", (-1, "a", "a", 0, 1, 1, 0, 0, 0, None))], [], [])),
            id="a-negative-position",
        ),
        pytest.param(marshal.dumps(([], [("pkg/x", "pkg/nowhere")], [])), id="link-to-no-member"),
        pytest.param(marshal.dumps(([], [], [(1, 2)])), id="rejection-of-wrong-types"),
        pytest.param(marshal.dumps(([], [], []))[:-2], id="truncated"),
    ],
)
def test_a_foreign_kept_listing_is_never_what_a_tree_is_listed_from(
    tmp_path: Path, payload: bytes
) -> None:
    path = _hostile(tmp_path / "pkg-1.0-py3-none-any.whl")
    with open_artifact(path) as tree:
        fresh = _seen(tree)
    # Under the user's own key (the cache's authentication lets it through): the
    # listing's decoding refuses it. (A well-formed listing under this key is one only
    # shiplint writes, with the user's secret: tests/test_cache_forgery.py.)
    name = zip_listing._KEPT.key(file_digest(path))
    cache.write("zip-listing", name, payload)
    with open_artifact(path) as tree:
        seen = _seen(tree)
    if seen != fresh:
        pytest.fail(f"listed from a foreign entry: {seen!r}")
