"""A wheel's RECORD and its zip's local headers, checked against its members (SL330-SL334),
on copies of a real wheel (pybind11 3.1.0) altered the ways a hand-edited or hostile wheel
is: what pip does with each is in docs/findings/record.md."""

from __future__ import annotations

import json
import struct
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from shiplint import cache
from shiplint.cli import main

from tests.material import REPO, example_manifest, other_wheel

MEMBER = "pybind11/__init__.py"
RECORD = "pybind11-3.1.0.dist-info/RECORD"


def _copy(tmp_path: Path, edit: Callable[[str, bytes], bytes | None] | None = None,
          extra: tuple[tuple[str, bytes], ...] = ()) -> Path:  # fmt: skip
    source = other_wheel("pybind11")
    target = tmp_path / "dist" / source.name
    target.parent.mkdir()
    with zipfile.ZipFile(source) as zin, zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as zout:
        for info in zin.infolist():
            data = zin.read(info)
            changed = edit(info.filename, data) if edit else data
            if changed is not None:
                zout.writestr(info, changed)
        for name, data in extra:
            zout.writestr(name, data)
    return target


def _findings(tmp_path: Path, wheel: Path) -> list[dict[str, Any]]:
    out = tmp_path / "report.json"
    with cache.refusing_reuse():
        code = main(["check", "--no-sources", "--manifest",
                     str(example_manifest("pybind11").relative_to(REPO)), "--root", str(REPO),
                     "--select", "SL33", "--format", "json", "--output", str(out), str(wheel)])  # fmt: skip
    assert code in (0, 1)
    found: list[dict[str, Any]] = json.loads(out.read_text())["diagnostics"]
    return found


def _summary(found: list[dict[str, Any]]) -> list[tuple[str, str | None]]:
    return sorted((d["code"], d["location"].get("member")) for d in found)


def test_the_real_wheel_agrees_with_itself(tmp_path: Path) -> None:
    assert _findings(tmp_path, other_wheel("pybind11")) == []


def test_a_changed_member_is_a_hash_and_size_mismatch(tmp_path: Path) -> None:
    wheel = _copy(tmp_path, lambda n, d: d + b"# changed\n" if n == MEMBER else d)
    found = _findings(tmp_path, wheel)
    assert _summary(found) == [("SL330", MEMBER), ("SL330", MEMBER)]
    assert {d["severity"] for d in found} == {"warning"}
    assert any("its sha256 is" in d["message"] for d in found)


def _record(rows: bytes) -> Callable[[str, bytes], bytes]:
    return lambda n, d: d + rows if n == RECORD else d


def test_a_listed_file_the_wheel_lacks_and_an_unlisted_one(tmp_path: Path) -> None:
    wheel = _copy(tmp_path, _record(b"pybind11/gone.py,sha256=AAAA,4\n"),
                  extra=(("pybind11/extra.py", b"x = 1\n"),))  # fmt: skip
    found = _findings(tmp_path, wheel)
    assert _summary(found) == [("SL331", RECORD), ("SL331", "pybind11/extra.py")]
    assert any("'pybind11/gone.py', which the wheel does not hold" in d["message"] for d in found)


def test_a_record_row_outside_the_install_directory_is_an_error(tmp_path: Path) -> None:
    wheel = _copy(tmp_path, _record(b"../../../victim.txt,,\n"))
    ((code, member),) = _summary(found := _findings(tmp_path, wheel))
    assert (code, member) == ("SL332", RECORD) and found[0]["severity"] == "error"
    assert "'../../../victim.txt'" in found[0]["message"]


def test_a_local_header_naming_another_file_is_an_error(tmp_path: Path) -> None:
    wheel = _copy(tmp_path)
    data = bytearray(wheel.read_bytes())
    with zipfile.ZipFile(wheel) as archive:
        offset = archive.getinfo(MEMBER).header_offset
    (length,) = struct.unpack_from("<H", data, offset + 26)
    name = bytes(data[offset + 30 : offset + 30 + length])
    data[offset + 30 : offset + 30 + length] = name.replace(b"__init__", b"__evil__")
    wheel.write_bytes(bytes(data))
    found = _findings(tmp_path, wheel)
    assert _summary(found) == [("SL333", MEMBER)]
    assert "name 'pybind11/__evil__.py'" in found[0]["message"]


def test_a_local_entry_no_central_entry_names(tmp_path: Path) -> None:
    wheel = _copy(tmp_path, extra=(("pybind11/hidden.py", b"import os\n"),))
    data = wheel.read_bytes()
    with zipfile.ZipFile(wheel) as archive:
        start = archive.start_dir
        hidden = archive.getinfo("pybind11/hidden.py")
        entries = [i for i in archive.infolist() if i.filename != "pybind11/hidden.py"]
    # The central directory rewritten without the hidden member: its bytes stay in place.
    eocd_at = data.rindex(b"PK\x05\x06")
    records = data[start:eocd_at].split(b"PK\x01\x02")[1:]
    body = b"".join(b"PK\x01\x02" + r for r in records if b"pybind11/hidden.py" not in r)
    eocd = bytearray(data[eocd_at:])
    struct.pack_into("<HHLL", eocd, 8, len(entries), len(entries), len(body), start)
    wheel.write_bytes(data[:start] + body + bytes(eocd))
    found = _findings(tmp_path, wheel)
    assert _summary(found) == [("SL334", None)]
    assert f"offset {hidden.header_offset}" in found[0]["message"]


@pytest.mark.parametrize("rows", [b'"unterminated,\n', b"\xff\xfe,,\n"])
def test_an_unreadable_record_is_said(tmp_path: Path, rows: bytes) -> None:
    wheel = _copy(tmp_path, lambda n, d: rows if n == RECORD else d)
    found = _findings(tmp_path, wheel)
    assert [d["code"] for d in found] == ["SL331"] or {d["code"] for d in found} == {"SL331"}


def test_a_plain_zip_has_its_headers_checked_and_no_record(tmp_path: Path) -> None:
    wheel = _copy(tmp_path, _record(b"../../../victim.txt,,\n"))
    data = bytearray(wheel.read_bytes())
    with zipfile.ZipFile(wheel) as archive:
        offset = archive.getinfo(MEMBER).header_offset
    data[offset + 30 + len("pybind11/_")] ^= 0x20  # one letter of the local name's case
    plain = tmp_path / "prefix.zip"
    plain.write_bytes(bytes(data))
    # A zip is no wheel: its RECORD is a file like any other (no SL332), its headers count.
    assert _summary(_findings(tmp_path, plain)) == [("SL333", MEMBER)]


def test_a_warm_run_reads_no_byte_and_a_rewritten_wheel_is_read_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from shiplint.artifacts import integrity

    wheel = _copy(tmp_path)
    with zipfile.ZipFile(wheel) as archive:
        assert integrity.check_wheel(wheel, archive) == ()
    hashed: list[Path] = []
    real_open = Path.open

    def counting_open(self: Path, *args: Any, **kwargs: Any) -> Any:
        if self == wheel:
            hashed.append(self)
        return real_open(self, *args, **kwargs)

    monkeypatch.setattr(Path, "open", counting_open)
    with zipfile.ZipFile(wheel) as archive:
        assert integrity.check_wheel(wheel, archive) == ()
    assert hashed == []
    # Written again (a member changed after RECORD): a new change time, hashed and checked.
    with zipfile.ZipFile(wheel, "a") as archive:
        archive.writestr("pybind11/late.py", b"x = 2\n")
    with zipfile.ZipFile(wheel) as archive:
        problems = integrity.check_wheel(wheel, archive)
    assert hashed == [wheel]
    assert [(p.kind, p.member) for p in problems] == [("record-unlisted", "pybind11/late.py")]
