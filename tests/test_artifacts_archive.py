"""Reading wheels, zips, tars and install trees without unpacking; hostile input stays contained."""

from __future__ import annotations

import io
import os
import random
import stat
import struct
import tarfile
import zipfile
from pathlib import Path

import pytest
from shiplint.artifacts.archive import (
    ArtifactError,
    ArtifactKind,
    MemberError,
    name_problem,
    normalise_member,
    open_artifact,
    plain_member,
)
from shiplint.platforms import Platform

from tests.material import OTHER_WHEELS, cached_wheel, wheel

ELF_MAGIC = b"\x7fELF"


def _zip(path: Path, members: dict[str, bytes], links: dict[str, str] | None = None) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
        for name, target in (links or {}).items():
            info = zipfile.ZipInfo(name)
            info.external_attr = (stat.S_IFLNK | 0o777) << 16
            archive.writestr(info, target)
    return path


def _tar(path: Path, members: dict[str, bytes], mode: str = "w:gz") -> tarfile.TarFile:
    # The caller adds links, then closes.
    archive: tarfile.TarFile = tarfile.open(path, mode)  # type: ignore[call-overload]  # noqa: SIM115
    for name, data in members.items():
        info = tarfile.TarInfo(name)
        info.size = len(data)
        archive.addfile(info, io.BytesIO(data))
    return archive


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("pkg/lib/libx.so", "pkg/lib/libx.so"),
        ("./pkg//lib/./libx.so", "pkg/lib/libx.so"),
        ("pkg\\lib\\libx.so", "pkg/lib/libx.so"),
        ("../evil.so", None),
        ("pkg/../../evil.so", None),
        ("/etc/passwd", None),
        ("C:/Windows/evil.dll", None),
        ("..\\..\\evil.dll", None),
        ("", None),
    ],
)
def test_member_names_are_normalised_and_hostile_ones_refused(
    raw: str, expected: str | None
) -> None:
    assert normalise_member(raw) == expected


def _agrees_when_plain(raw: str) -> bool:
    """plain_member's promise for one name; whether the name was plain."""
    if not plain_member(raw):
        return False
    assert normalise_member(raw) == raw, raw
    assert name_problem(raw) is None, raw
    return True


def test_plain_member_names_are_the_names_the_full_checks_keep_as_they_are() -> None:
    rng = random.Random(1201)
    pieces = ["a", "lib", "x.so", ".", "..", "/", "//", "\\", ":", "C:", "\x00", "\x1f", "\x7f",
              " ", "-", "_", "\u00e9", "\ud800", "\udcff", "a" * 70, "b" * 260, "a/" * 40]  # fmt: skip
    plain = 0
    for _ in range(100_000):
        raw = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 9)))
        plain += _agrees_when_plain(raw)
    assert plain > 1000
    for raw in ("a/" * 63 + "b", "a/" * 64 + "b", "a" * 255, "a" * 256, "a/.b", "a/b."):
        _agrees_when_plain(raw)


def test_a_real_wheel_s_names_are_plain() -> None:
    for path in (wheel("1.5.1", "manylinux_2_28_x86_64"), cached_wheel(*OTHER_WHEELS["openvino"])):
        with zipfile.ZipFile(path) as archive:
            names = [info.filename for info in archive.infolist() if not info.is_dir()]
        plain = sum(_agrees_when_plain(name) for name in names)
        # The full checks run for the few (none here) that are not plain.
        assert plain == len(names), path


def test_real_wheel_lists_members_and_platform_without_unpacking() -> None:
    with open_artifact(wheel("1.5.1", "manylinux_2_28_x86_64")) as tree:
        assert tree.kind is ArtifactKind.WHEEL
        assert tree.platform == Platform("linux", "x86_64")
        names = tree.names()
        assert "executorch/lib/libexecutorch.so" in names
        assert not any(n.endswith("/") for n in names)
        assert tree.rejected == ()
        data = tree.read("executorch/lib/libexecutorch.so")
        assert data[:4] == ELF_MAGIC
        assert len(data) == tree.size("executorch/lib/libexecutorch.so")
        assert tree.head("executorch/lib/libexecutorch.so", 4) == ELF_MAGIC


@pytest.mark.parametrize(
    ("tag", "platform"),
    [
        ("macosx_14_0_arm64", Platform("macos", "aarch64")),
        ("win_amd64", Platform("windows", "x86_64")),
        ("manylinux_2_28_aarch64", Platform("linux", "aarch64")),
    ],
)
def test_platform_comes_from_the_wheel_tag(tag: str, platform: Platform) -> None:
    with open_artifact(wheel("1.5.1", tag)) as tree:
        assert tree.platform == platform


def test_compressed_tag_set_names_one_platform(tmp_path: Path) -> None:
    path = _zip(
        tmp_path / "p-1.0-cp311-cp311-manylinux_2_17_x86_64.manylinux2014_x86_64.whl",
        {
            "p/__init__.py": b"",
        },
    )
    with open_artifact(path) as tree:
        assert tree.platform == Platform("linux", "x86_64")


def test_plain_zip_and_tar_have_no_platform_until_binaries_say(tmp_path: Path) -> None:
    with open_artifact(_zip(tmp_path / "sdk.zip", {"lib/a.so": b"x"})) as tree:
        assert (tree.kind, tree.platform, tree.names()) == (ArtifactKind.ZIP, None, ("lib/a.so",))
    _tar(tmp_path / "sdk.tar.gz", {"lib/a.so": b"abc"}).close()
    with open_artifact(tmp_path / "sdk.tar.gz") as tree:
        assert (tree.kind, tree.platform, tree.names()) == (ArtifactKind.TAR, None, ("lib/a.so",))
        assert tree.read("lib/a.so") == b"abc"


@pytest.mark.parametrize("suffix", [".tar", ".tgz", ".tar.xz"])
def test_every_tar_compression_reads(tmp_path: Path, suffix: str) -> None:
    mode = {".tar": "w", ".tgz": "w:gz", ".tar.xz": "w:xz"}[suffix]
    _tar(tmp_path / f"sdk{suffix}", {"./lib/b.so": b"data"}, mode).close()
    with open_artifact(tmp_path / f"sdk{suffix}") as tree:
        assert tree.names() == ("lib/b.so",)
        assert tree.read("lib/b.so") == b"data"


def test_zip_with_climbing_absolute_and_escaping_link_members(tmp_path: Path) -> None:
    path = _zip(
        tmp_path / "bad-1.0-py3-none-linux_x86_64.whl",
        {"../evil.so": b"x", "/abs.so": b"y", "ok/lib.so": b"z"},
        links={"ok/inside.so": "lib.so", "ok/outside.so": "../../etc/passwd"},
    )
    with open_artifact(path) as tree:
        assert tree.names() == ("ok/inside.so", "ok/lib.so")
        assert tree.read("ok/inside.so") == b"z"
        rejected = {r.member: r.reason for r in tree.rejected}
        assert set(rejected) == {"../evil.so", "/abs.so", "ok/outside.so"}
        assert "leaves the archive" in rejected["ok/outside.so"]


def test_tar_with_hostile_members(tmp_path: Path) -> None:
    archive = _tar(tmp_path / "bad.tar.gz", {"../up.so": b"a", "lib/real.so": b"real"})
    for name, target, kind in [
        ("lib/alias.so", "real.so", tarfile.SYMTYPE),
        ("lib/escape.so", "../../../etc/passwd", tarfile.SYMTYPE),
        ("lib/abs.so", "/etc/passwd", tarfile.SYMTYPE),
        ("lib/hard.so", "lib/real.so", tarfile.LNKTYPE),
        ("lib/hardout.so", "../etc/passwd", tarfile.LNKTYPE),
        ("lib/fifo", "", tarfile.FIFOTYPE),
    ]:
        info = tarfile.TarInfo(name)
        info.type = kind
        info.linkname = target
        archive.addfile(info)
    archive.close()
    with open_artifact(tmp_path / "bad.tar.gz") as tree:
        assert tree.names() == ("lib/alias.so", "lib/hard.so", "lib/real.so")
        assert tree.read("lib/alias.so") == tree.read("lib/hard.so") == b"real"
        rejected = {r.member for r in tree.rejected}
        assert rejected == {"../up.so", "lib/escape.so", "lib/abs.so", "lib/hardout.so", "lib/fifo"}


def test_directory_with_escaping_and_inner_links(tmp_path: Path) -> None:
    root = tmp_path / "prefix"
    (root / "lib").mkdir(parents=True)
    (root / "lib" / "libx.so.1").write_bytes(b"x")
    os.symlink("libx.so.1", root / "lib" / "libx.so")
    os.symlink("/etc/passwd", root / "lib" / "passwd.so")
    os.symlink("missing.so", root / "lib" / "dangling.so")
    os.symlink("/usr", root / "usr")
    with open_artifact(root) as tree:
        assert tree.kind is ArtifactKind.DIRECTORY and tree.label == "prefix"
        assert tree.names() == ("lib/libx.so", "lib/libx.so.1")
        assert tree.read("lib/libx.so") == b"x"
        assert {r.member for r in tree.rejected} == {"lib/passwd.so", "lib/dangling.so", "usr"}


def test_zip_bomb_is_refused_without_inflating(tmp_path: Path) -> None:
    # 8 MiB of zeros deflate to a few KiB: a ratio no real library has.
    path = _zip(tmp_path / "bomb.zip", {"lib/bomb.so": bytes(8 * 1024 * 1024), "lib/ok.so": b"ok"})
    with open_artifact(path) as tree:
        assert tree.names() == ("lib/ok.so",)
        (rejected,) = tree.rejected
        assert rejected.member == "lib/bomb.so" and "zip bomb" in rejected.reason


def test_read_refuses_members_over_the_limit(tmp_path: Path) -> None:
    path = _zip(tmp_path / "big.zip", {"lib/big.so": os.urandom(4096)})
    with open_artifact(path) as tree, pytest.raises(MemberError, match="read limit") as err:
        tree.read("lib/big.so", limit=1024)
    assert err.value.member == "lib/big.so"


def test_member_larger_than_declared_is_an_error_not_a_bigger_read(tmp_path: Path) -> None:
    path = _zip(tmp_path / "lie.zip", {"lib/lie.so": os.urandom(2048)})
    raw = bytearray(path.read_bytes())
    # Shrink the declared size in the central directory (offset 24 of the entry).
    central = raw.rfind(b"PK\x01\x02")
    struct.pack_into("<I", raw, central + 24, 100)
    path.write_bytes(bytes(raw))
    with open_artifact(path) as tree:
        assert tree.size("lib/lie.so") == 100
        with pytest.raises(MemberError, match="cannot be read"):
            tree.read("lib/lie.so")


def test_missing_member_is_a_member_error(tmp_path: Path) -> None:
    with (
        open_artifact(_zip(tmp_path / "a.zip", {"a": b"1"})) as tree,
        pytest.raises(MemberError, match="no such member"),
    ):
        tree.read("b")


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("empty-1.0-py3-none-any.whl", b"", "empty file"),
        ("text-1.0-py3-none-any.whl", b"not a zip at all", "not one"),
        ("thing.bin", b"\x00\x01garbage", "not a wheel, zip, tar"),
        ("broken.tar.gz", b"\x1f\x8b\x08\x00garbage", "tar archive"),
    ],
)
def test_unopenable_artifacts_raise_artifact_error_with_the_path(
    tmp_path: Path, name: str, content: bytes, message: str
) -> None:
    path = tmp_path / name
    path.write_bytes(content)
    with pytest.raises(ArtifactError, match=message) as err:
        open_artifact(path)
    assert err.value.path == str(path)


def test_missing_artifact_raises(tmp_path: Path) -> None:
    with pytest.raises(ArtifactError, match="no such file"):
        open_artifact(tmp_path / "nope.whl")


def test_nothing_is_written_while_reading(tmp_path: Path) -> None:
    path = _zip(tmp_path / "w.zip", {"../../escape.so": b"x", "a/b.so": b"y"})
    before = sorted(p.name for p in tmp_path.rglob("*"))
    with open_artifact(path) as tree:
        tree.read("a/b.so")
    assert sorted(p.name for p in tmp_path.rglob("*")) == before
    assert not (tmp_path.parent / "escape.so").exists()


def test_tar_declaring_too_much_is_not_scanned(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from shiplint.artifacts import archive

    _tar(tmp_path / "big.tar.gz", {"a.so": bytes(4096), "b.so": bytes(4096)}).close()
    monkeypatch.setattr(archive, "MAX_TAR_BYTES", 6000)
    with pytest.raises(ArtifactError, match="not scanned further"):
        open_artifact(tmp_path / "big.tar.gz")


def test_members_are_inflated_once_within_the_cache_bound(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import zipfile

    import shiplint.artifacts.archive as archive

    monkeypatch.setattr(archive, "CACHE_BYTES", 1000)
    path = tmp_path / "pkg-1.0-py3-none-any.whl"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("pkg/small.so", b"s" * 100)
        zf.writestr("pkg/big.so", b"b" * 5000)
    with archive.open_artifact(path) as tree:
        small, big = tree.read("pkg/small.so"), tree.read("pkg/big.so")

        def no_more_reads(name: str) -> object:
            raise AssertionError(f"{name} inflated again")

        def no_more_plain_reads(
            _: object, info: zipfile.ZipInfo, *__: object, **___: object
        ) -> bool:
            raise AssertionError(f"{info.filename} inflated again")

        # Neither by the block reader (a plain member) nor by zipfile (any other).
        monkeypatch.setattr(archive, "read_plain", no_more_plain_reads)
        monkeypatch.setattr(tree, "_open", no_more_reads)
        assert tree.read("pkg/small.so") == small  # kept
        with pytest.raises(AssertionError, match=r"big\.so inflated again"):
            tree.read("pkg/big.so")  # over the bound: read again, not kept
    assert big == b"b" * 5000


def test_a_name_with_one_overlong_component_is_refused_and_a_long_path_is_not(
    tmp_path: Path,
) -> None:
    from shiplint.artifacts.archive import MAX_COMPONENT_BYTES

    # Multi-byte characters: the limit is on encoded bytes, not characters.
    overlong = "pkg/" + "é" * (MAX_COMPONENT_BYTES // 2 + 1) + ".so"
    long_path = "/".join(["d" * 200] * 3) + "/libx.so"  # longer than one component may be
    path = _zip(tmp_path / "names.zip", {overlong: b"1", long_path: b"2"})
    with open_artifact(path) as tree:
        assert tree.names() == (long_path,)
        (rejected,) = tree.rejected
        assert f"component longer than {MAX_COMPONENT_BYTES} bytes" in rejected.reason
