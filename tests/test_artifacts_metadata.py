"""A wheel's METADATA is read as packaging's `parse_email` reads it, without importing it.

`parse_metadata` reads the header block with the standard library's header parser;
`packaging.metadata.parse_email` (the reader it replaced, on the same decoded text) is
the reference: the real wheels' METADATA,
hand-written malformed ones and generated ones must give the same `Version` and
`Requires-Dist` values.
"""

from __future__ import annotations

import random
import zipfile
from pathlib import Path

import pytest
from packaging.metadata import parse_email
from shiplint.artifacts.archive import open_artifact
from shiplint.artifacts.metadata import WheelMetadata, parse_metadata, read_metadata

from tests.artifact_libs import pack_wheel
from tests.material import OTHER_WHEELS, TBB_RUNTIME, cached_wheel, wheel

_EXECUTORCH = [
    ("1.5.1", "manylinux_2_28_x86_64"),
    ("1.5.1", "manylinux_2_28_aarch64"),
    ("1.5.1", "macosx_14_0_arm64"),
    ("1.5.1", "win_amd64"),
    ("1.4.1", "manylinux_2_28_x86_64"),
]


def _real_wheels() -> list[Path]:
    others = [cached_wheel(*named) for named in (*OTHER_WHEELS.values(), TBB_RUNTIME)]
    return [wheel(version, platform) for version, platform in _EXECUTORCH] + others


def _packaging_reads(data: bytes) -> tuple[tuple[str, ...], str | None]:
    """What the previous reader kept: every Requires-Dist, and Version when parsed."""
    raw, unparsed = parse_email(data.decode("utf-8", "replace"))
    assert "requires-dist" not in unparsed  # no undecodable value in decoded text
    version = raw.get("version")
    return tuple(raw.get("requires_dist", ())), version if isinstance(version, str) else None


def _reads(data: bytes) -> tuple[tuple[str, ...], str | None]:
    metadata = parse_metadata("x.dist-info/METADATA", data)
    assert metadata.problem is None
    return metadata.requires_dist, metadata.version


def test_the_real_wheels_metadata_reads_as_packaging_reads_it() -> None:
    read = 0
    for path in _real_wheels():
        with zipfile.ZipFile(path) as archive:
            names = [n for n in archive.namelist() if n.endswith(".dist-info/METADATA")]
            assert len(names) == 1, path
            data = archive.read(names[0])
        assert _reads(data) == _packaging_reads(data), path
        # The Name SL324/SL325 compare with the file name, as packaging reads it.
        name = parse_email(data.decode("utf-8", "replace"))[0].get("name")
        assert parse_metadata(names[0], data).name == name, path
        read += 1
    # The 1.5.1 Linux wheel's own fields, as SL321 reads them.
    with zipfile.ZipFile(wheel("1.5.1", "manylinux_2_28_x86_64")) as archive:
        data = archive.read("executorch-1.5.1.dist-info/METADATA")
    requires, version = _reads(data)
    assert version == "1.5.1"
    assert 'numpy>=2.0.0; python_version >= "3.10"' in requires
    assert "torchao<0.19,>=0.18.0" in requires and "torch" not in requires
    assert read == len(_EXECUTORCH) + len(OTHER_WHEELS) + 1  # every wheel the material has


MALFORMED = [
    "",
    "\n",
    "Version: 1.0",
    "Version: 1.0\nVersion: 2.0\n",
    "Version: 1.0\nVERSION: 1.0\n",
    "version:1.0\nrequires-dist:a\nREQUIRES-DIST:  b  \n",
    "Version : 1.0\nRequires-Dist : a\n",
    " Version: 1.0\nRequires-Dist: a\n",
    "\tcontinued\nVersion: 1.0\n",
    "Requires-Dist: a;\n  extra == 'x'\n\tand more\nVersion: 1\n",
    "Requires-Dist: a\r\nRequires-Dist: b\r\n\r\nRequires-Dist: body\r\n",
    "Requires-Dist: a\rRequires-Dist: b\r\rVersion: body\r",
    "Requires-Dist: a\n\x0bRequires-Dist: b\n",
    "Requires-Dist: a\u2028Requires-Dist: b\n",
    "From someone\nVersion: 1.0\n",
    "Version: 1.0\nFrom someone: x\nRequires-Dist: a\n",
    "Version: 1.0\nFrom someone\n",
    "Version: 1.0\nFrom x\n  continued\nRequires-Dist: a\n",
    ": no name\n  continued\nVersion: 2\n",
    "Version: 1.0\nnot a header line\nRequires-Dist: a\n",
    "Version: 1.0\nname with space: x\nRequires-Dist: a\n",
    "Requires-Dist: a\nVersion:\n",
    "Requires-Dist:\nRequires-Dist:   \t\n",
    "Requires-Dist: caf\u00e9\nVersion: 1.0+\u00fc\n",
    "Requires-Dist: x\n\nDescription body\nVersion: 9\n",
    "Version: 1.0\nContent-Type: multipart/mixed; boundary=b\n\n--b\nVersion: 2\n\n--b--\n",
]


@pytest.mark.parametrize("text", MALFORMED)
def test_malformed_metadata_reads_as_packaging_reads_it(text: str) -> None:
    data = text.encode("utf-8")
    try:
        expected = _packaging_reads(data)
    except AssertionError:
        # parse_email asserts a single-part body: a multipart METADATA crashed the old
        # reader; the header fields are still read.
        assert _reads(data) == ((), "1.0")
        return
    assert _reads(data) == expected


def test_undecodable_bytes_read_as_packaging_reads_them() -> None:
    data = b"Version: 1.0\xff\nRequires-Dist: a\xed\xa0\x80b\nRequires-Dist: \xc3\n"
    assert _reads(data) == _packaging_reads(data)
    assert _reads(data)[1] == "1.0\ufffd"


def _generated(rng: random.Random) -> str:
    pieces = [
        "Version: 1.{n}",
        "version:{n}",
        "Requires-Dist: pkg{n}",
        "REQUIRES-DIST:\tpkg{n} ; extra == 'e'",
        "  continued {n}",
        "\tcontinued",
        "From sender {n}",
        ": nameless {n}",
        "",
        "body line {n}",
        "Name: x",
        "Requires-Dist : spaced",
        "Summary: a: b",
    ]
    ends = ["\n", "\r\n", "\r"]
    count = rng.randint(0, 12)
    return "".join(
        rng.choice(pieces).format(n=rng.randint(0, 9)) + rng.choice(ends) for _ in range(count)
    ) + rng.choice(["", "Version: 3"])


def test_generated_metadata_reads_as_packaging_reads_it() -> None:
    rng = random.Random(20261201)
    for _ in range(3000):
        data = _generated(rng).encode()
        assert _reads(data) == _packaging_reads(data), data


def test_a_wheel_without_metadata_or_with_an_unreadable_one(tmp_path: Path) -> None:
    bare = pack_wheel(tmp_path / "p-1.0-py3-none-any.whl", {"p/__init__.py": b""})
    with open_artifact(bare) as tree:
        assert read_metadata(tree, tree.names()) is None
    text = b"Version: 1.0\nRequires-Dist: a\n"
    member = "p-1.0.dist-info/METADATA"
    good = pack_wheel(tmp_path / "q-1.0-py3-none-any.whl", {member: text})
    with open_artifact(good) as tree:
        assert read_metadata(tree, tree.names()) == WheelMetadata(member, ("a",), None, "1.0")
    # Incompressible, so the archive takes it for a member, not a zip bomb.
    noise = random.Random(5).randbytes(5 * 1024 * 1024)
    huge = pack_wheel(tmp_path / "r-1.0-py3-none-any.whl", {member: noise})
    with open_artifact(huge) as tree:
        metadata = read_metadata(tree, tree.names())
    assert metadata is not None and metadata.requires_dist == ()
    assert metadata.problem is not None and "read limit" in metadata.problem
