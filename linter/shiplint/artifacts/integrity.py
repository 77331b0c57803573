"""A wheel's own account of itself, checked: its RECORD against its members, and its zip's
local headers against its central directory.

RECORD (`<name>.dist-info/RECORD`, one `path,hash,size` row per file) is what installers
write into the environment and what `pip uninstall` removes by; the local headers are
what a reader that streams the archive (front to back, without its central directory)
takes as the members. shiplint reads members through the central directory, as zipfile
and pip do, so it must say when the other two views disagree with what it read.

The check hashes every member RECORD lists, which means inflating the whole wheel once;
its outcome is kept in the user cache under the digest of the wheel file's bytes
(`shiplint.memo`), so a later run over the same wheel hashes the file and inflates
nothing.
"""

from __future__ import annotations

import base64
import csv
import hashlib
import io
import struct
import zipfile
from collections.abc import Mapping
from pathlib import Path
from typing import IO, Any

from shiplint import cache
from shiplint.artifacts.file_digest import file_digest
from shiplint.artifacts.kinds import MemberError
from shiplint.artifacts.member_names import normalise_member, printable
from shiplint.artifacts.zip_inflate import read_plain
from shiplint.fastclass import dataclass
from shiplint.memo import Memo, constant
from shiplint.plural import counted

# What one RECORD may hold: a wheel of 200,000 members at 200 bytes a row.
MAX_RECORD_BYTES = 40 * 1024 * 1024
_CHUNK = 1024 * 1024
_LOCAL = struct.Struct("<4s5H3L2H")
_LOCAL_SIGNATURE = b"PK\x03\x04"
_DESCRIPTOR_SIGNATURE = b"PK\x07\x08"
# Files RECORD cannot list with a hash (itself, its signatures).
_UNHASHED = ("RECORD", "RECORD.jws", "RECORD.p7s")


@dataclass(frozen=True)
class Problem:
    # record-hash, record-size, record-missing, record-unlisted, record-outside,
    # record-absent, record-unreadable, zip-header, zip-unreferenced
    kind: str
    # The member it is about (None: the archive as a whole).
    member: str | None
    detail: str


def check_wheel(
    path: Path,
    zip_file: zipfile.ZipFile,
    record: bool = True,
    inflated: Mapping[zipfile.ZipInfo, bytes] | None = None,
) -> tuple[Problem, ...]:
    """Every disagreement between the archive's members, its local headers and (a wheel's,
    when `record`) RECORD; kept by the archive file's digest. `inflated`: members the
    caller already read whole through zipfile, by their entry (a first run has inflated
    the wheel's libraries to read them: they are hashed, not inflated again)."""
    return _KEPT.through(
        lambda: _check(zip_file, record, inflated or {}), file_digest(path), bytes([record])
    )


def kept_check(path: Path, record: bool = True) -> tuple[Problem, ...] | None:
    """What `check_wheel` found in this same archive file before, or None."""
    return _KEPT.get(file_digest(path), bytes([record]))


def _check(
    zip_file: zipfile.ZipFile,
    record: bool = True,
    inflated: Mapping[zipfile.ZipInfo, bytes] | None = None,
) -> tuple[Problem, ...]:
    found = _record_problems(zip_file, inflated or {}) if record else []
    return (*found, *_header_problems(zip_file))


# -- RECORD ---------------------------------------------------------------------------


def _record_problems(
    zip_file: zipfile.ZipFile, inflated: Mapping[zipfile.ZipInfo, bytes]
) -> list[Problem]:
    infos = {i.filename: i for i in zip_file.infolist() if not i.is_dir()}
    records = [n for n in infos if n.count("/") == 1 and n.endswith(".dist-info/RECORD")]
    if len(records) != 1:
        what = "no .dist-info/RECORD" if not records else counted(len(records), "RECORD file")
        return [Problem("record-absent", None, f"the wheel holds {what}")]
    (record,) = records
    try:
        rows = _rows(zip_file, infos[record])
    except (MemberError, ValueError, csv.Error, UnicodeDecodeError, zipfile.BadZipFile) as exc:
        return [Problem("record-unreadable", record, f"RECORD cannot be read: {exc}")]
    problems: list[Problem] = []
    listed: set[str] = set()
    for line, row in rows:
        if not row or not row[0]:
            continue
        name = row[0]
        normal = normalise_member(name)
        if normal is None:
            problems.append(
                Problem("record-outside", record, f"RECORD line {line} names {printable(name)!r}, "
                        "outside the wheel's install directory")
            )  # fmt: skip
            continue
        listed.add(normal)
        info = infos.get(normal)
        if info is None:
            problems.append(
                Problem("record-missing", record, f"RECORD line {line} lists "
                        f"{printable(name)!r}, which the wheel does not hold")
            )  # fmt: skip
            continue
        if not _unhashed(normal, record):
            problems += _row_problems(zip_file, info, row, line, inflated.get(info))
    for name in sorted(infos):
        if name not in listed and not _unhashed(name, record):
            problems.append(
                Problem("record-unlisted", name, f"{printable(name)!r} is not listed in RECORD")
            )
    return problems


def _rows(zip_file: zipfile.ZipFile, info: zipfile.ZipInfo) -> list[tuple[int, list[str]]]:
    if info.file_size > MAX_RECORD_BYTES:
        raise ValueError(f"{info.file_size} bytes, more than {MAX_RECORD_BYTES}")
    text = zip_file.read(info).decode("utf-8")
    reader = csv.reader(io.StringIO(text, newline=""))
    return [(reader.line_num, row) for row in reader]


def _unhashed(name: str, record: str) -> bool:
    directory = record.rsplit("/", 1)[0]
    return name in {f"{directory}/{n}" for n in _UNHASHED}


def _row_problems(
    zip_file: zipfile.ZipFile,
    info: zipfile.ZipInfo,
    row: list[str],
    line: int,
    inflated: bytes | None = None,
) -> list[Problem]:
    name = info.filename
    hash_text = row[1] if len(row) > 1 else ""
    size_text = row[2] if len(row) > 2 else ""
    problems = []
    if size_text and size_text != str(info.file_size):
        problems.append(
            Problem("record-size", name, f"RECORD line {line} gives {printable(size_text)!r} "
                    f"bytes, the member holds {info.file_size}")
        )  # fmt: skip
    if not hash_text:
        return [*problems, Problem("record-hash", name, f"RECORD line {line} gives no hash")]
    algorithm, _, expected = hash_text.partition("=")
    if algorithm not in ("sha256", "sha384", "sha512", "blake2b"):
        return [
            *problems,
            Problem("record-hash", name, f"RECORD line {line} uses {printable(algorithm)!r}, "
                    "which a wheel may not (sha256 or stronger)"),
        ]  # fmt: skip
    # Bytes zipfile gave for this entry, read whole without an error, are what it gives
    # again: hashing them is reading the member.
    if inflated is not None and _encoded(hashlib.new(algorithm, inflated)) == expected:
        return problems
    if _confirmed(zip_file, info, algorithm, expected):
        return problems
    actual = _member_hash(zip_file, info, algorithm)
    if actual is None:
        return problems  # unreadable: the rules that read it say why
    if actual != expected:
        problems.append(
            Problem("record-hash", name, f"its {algorithm} is {actual}, RECORD line {line} "
                    f"says {printable(expected[:64])}")
        )  # fmt: skip
    return problems


def _confirmed(zip_file: zipfile.ZipFile, info: zipfile.ZipInfo, algorithm: str,
               expected: str) -> bool:  # fmt: skip
    """Whether the member is plain and its bytes hash to `expected`, read and inflated in
    large blocks (`zip_inflate`): zipfile's reader spends a third of the check in Python
    calls per member. False whenever anything about the member is not plain, or its hash
    differs: `_member_hash` then reads it through zipfile, which says what is wrong.

    zipfile reads a plain member to these same bytes, or fails on a CRC-32 mismatch;
    either way RECORD's row is not a problem (an unreadable member is said by the rules
    that read it), so the CRC-32 is left to zipfile here."""
    return _plain_hash(zip_file, info, algorithm) == expected


def _plain_hash(zip_file: zipfile.ZipFile, info: zipfile.ZipInfo, algorithm: str) -> str | None:
    """A plain member's hash (see `zip_inflate`); None for any other member."""
    hasher = hashlib.new(algorithm)
    stream = zip_file.fp
    if stream is None:
        return None
    encoding = getattr(zip_file, "metadata_encoding", None)
    plain = read_plain(stream, info, hasher.update, crc=False, encoding=encoding)
    return _encoded(hasher) if plain else None


def _member_hash(zip_file: zipfile.ZipFile, info: zipfile.ZipInfo, algorithm: str) -> str | None:
    hasher = hashlib.new(algorithm)
    try:
        with zip_file.open(info) as stream:
            while chunk := stream.read(_CHUNK):
                hasher.update(chunk)
    except (OSError, EOFError, RuntimeError, ValueError, NotImplementedError, zipfile.BadZipFile):
        return None
    except Exception:
        return None
    return _encoded(hasher)


def _encoded(hasher: Any) -> str:
    """A digest as RECORD writes it: urlsafe base64, unpadded."""
    return base64.urlsafe_b64encode(hasher.digest()).rstrip(b"=").decode("ascii")


# -- local headers ---------------------------------------------------------------------


def _header_problems(zip_file: zipfile.ZipFile) -> list[Problem]:
    stream = zip_file.fp
    if stream is None:
        return []
    problems: list[Problem] = []
    spans: list[tuple[int, int, str]] = []
    for info in zip_file.infolist():
        name = info.filename
        stream.seek(info.header_offset)
        header = stream.read(_LOCAL.size)
        if len(header) < _LOCAL.size or header[:4] != _LOCAL_SIGNATURE:
            problems.append(Problem("zip-header", name, "no local header where the central "
                                    f"directory puts it (offset {info.header_offset})"))  # fmt: skip
            continue
        _, _, flags, method, _, _, crc, compressed, size, name_length, extra_length = _LOCAL.unpack(
            header
        )
        raw_name = stream.read(name_length)
        local_name = raw_name.decode("utf-8" if flags & 0x800 else "cp437", "surrogateescape")
        differences = []
        if local_name != info.orig_filename:
            differences.append(f"name {printable(local_name)!r}")
        if method != info.compress_type:
            differences.append(f"compression method {method}, not {info.compress_type}")
        # With a data descriptor (flag 3) the local sizes are zero; zip64 ones are 0xFFFFFFFF.
        if not flags & 0x08 and 0xFFFFFFFF not in (compressed, size):
            if crc != info.CRC:
                differences.append(f"CRC-32 {crc:08x}, not {info.CRC:08x}")
            if (compressed, size) != (info.compress_size, info.file_size):
                differences.append(
                    f"{size} bytes ({compressed} compressed), not {info.file_size} "
                    f"({info.compress_size})"
                )
        if differences:
            problems.append(
                Problem("zip-header", name, "its local header disagrees with the central "
                        "directory: " + "; ".join(differences))
            )  # fmt: skip
        end = info.header_offset + _LOCAL.size + name_length + extra_length + info.compress_size
        if flags & 0x08:
            stream.seek(end)
            descriptor = stream.read(4)
            end += (16 if descriptor == _DESCRIPTOR_SIGNATURE else 12) + (
                8 if info.file_size > 0xFFFFFFFF else 0
            )
        spans.append((info.header_offset, end, name))
    problems += _gaps(zip_file, sorted(spans))
    return problems


def _gaps(zip_file: zipfile.ZipFile, spans: list[tuple[int, int, str]]) -> list[Problem]:
    """Local entries outside every referenced member: in the space before the first, between
    two, or after the last and before the central directory; and members that overlap."""
    stream = zip_file.fp
    assert stream is not None
    directory = getattr(zip_file, "start_dir", None)
    problems = []
    position = 0
    previous = ""
    for start, end, name in [*spans, (directory or 0, directory or 0, "")]:
        if start < position and name:
            problems.append(Problem("zip-header", name, f"overlaps {printable(previous)!r}"))
        elif start > position:
            found = _signature_in(stream, position, start)
            if found is not None:
                problems.append(
                    Problem("zip-unreferenced", None, f"a local entry at offset {found} that no "
                            "central directory entry names")
                )  # fmt: skip
        position, previous = max(position, end), name
    return problems


def _signature_in(stream: IO[bytes], start: int, end: int) -> int | None:
    stream.seek(start)
    carried = b""
    offset = start
    while offset < end:
        chunk = stream.read(min(_CHUNK, end - offset))
        if not chunk:
            return None
        window = carried + chunk
        at = window.find(_LOCAL_SIGNATURE)
        if at >= 0:
            return offset - len(carried) + at
        carried = window[-3:]
        offset += len(chunk)
    return None


def _encode(problems: tuple[Problem, ...]) -> Any:
    return [(p.kind, p.member, p.detail) for p in problems]


def _decode(data: Any) -> tuple[Problem, ...]:
    return tuple(Problem(str(k), None if m is None else str(m), str(d)) for k, m, d in data)


# Keyed by the code that reads the members too: the outcome is that code's.
_CODE = (Path(__file__), Path(__file__).with_name("zip_inflate.py"))
_KEPT: Memo[tuple[Problem, ...]] = Memo(
    "wheel-integrity", constant(cache.source_bytes(_CODE)), _encode, _decode
)
