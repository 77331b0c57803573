"""Hostile archives: bombs (by ratio, declared size, member count), nested archives, escaping
and colliding names, links, corrupt central directories and deflate streams, devices, and
non-UTF-8 names; zips written byte by byte, tars through tarfile, install trees on disk."""

from __future__ import annotations

import io
import os
import random
import struct
import tarfile
import zipfile
from collections.abc import Callable, Iterator
from pathlib import Path

from tests.hostile import rawzip
from tests.hostile.material import (
    CONFIG_MEMBERS,
    EXAMPLE_MANIFEST,
    LIBRARIES,
    WHEEL_STEM,
    dist_info,
    member,
)
from tests.hostile.runner import Case, Workspace

PLATFORM = "manylinux_2_28_x86_64"
LIB = "executorch/lib/"
MIB = 1024 * 1024


def _base() -> list[rawzip.Entry]:
    """The wheel's metadata and config, and one real library, as a real wheel holds them."""
    members = [*dist_info(PLATFORM), *((n, member(PLATFORM, n)) for n in CONFIG_MEMBERS)]
    _, lib = LIBRARIES["elf"]
    return [
        *(rawzip.entry(n, d, compress=True) for n, d in members),
        rawzip.entry(lib, member(PLATFORM, lib), compress=True),
    ]


def _zip_case(ws: Workspace, extra: list[rawzip.Entry], **kw: int) -> list[str]:
    path = ws.inputs / f"{WHEEL_STEM}{PLATFORM}.whl"
    path.write_bytes(rawzip.build([*_base(), *extra], **kw))
    return _check(path)


def _check(path: Path) -> list[str]:
    return [
        "check",
        "--no-sources",
        "--manifest",
        str(EXAMPLE_MANIFEST),
        "--format",
        "sarif",
        str(path),
    ]


def _zeros(size: int) -> rawzip.Entry:
    return rawzip.Entry(b"", rawzip.deflate(b"\0" * size), rawzip.DEFLATED, size=size)


def _named(e: rawzip.Entry, name: str | bytes) -> rawzip.Entry:
    return rawzip.Entry(
        name.encode() if isinstance(name, str) else name,
        e.data,
        e.method,
        e.crc,
        e.size,
        e.mode,
        e.utf8,
    )


def _ratio_bomb(ws: Workspace, rng: random.Random) -> list[str]:
    size = rng.choice((64, 255, 600)) * MIB
    e = _zeros(size)
    import zlib

    e.crc = zlib.crc32(b"\0" * size)
    return _zip_case(ws, [_named(e, LIB + "libexecutorch.so")])


def _declared_size(ws: Workspace, rng: random.Random) -> list[str]:
    # A small stream that claims to be tiny but inflates to 300 MiB, and one that claims 2**32-1.
    e = _zeros(300 * MIB)
    e.size = rng.choice((10, 0xFFFFFFFF, 1000))
    return _zip_case(ws, [_named(e, LIB + "libexecutorch.so")])


def _many_members(ws: Workspace, rng: random.Random) -> list[str]:
    count = rng.choice((12_000, 70_000))
    one = _zeros(rng.choice((MIB - 1, 64 * 1024)))
    extra = [_named(one, f"executorch/include/h{i}.h") for i in range(count)]
    return _zip_case(ws, extra)


def _nested(ws: Workspace, rng: random.Random) -> list[str]:
    inner = rawzip.build(_base())
    for _ in range(rng.choice((1, 5, 20))):
        inner = rawzip.build([rawzip.entry("inner.whl", inner)])
    return _zip_case(
        ws, [rawzip.entry(LIB + "nested.whl", inner), rawzip.entry(LIB + "libexecutorch.so", inner)]
    )


def _bad_names(ws: Workspace, rng: random.Random) -> list[str]:
    lib = member(PLATFORM, LIBRARIES["elf"][1])
    names: list[bytes] = [
        b"../../../../" + ws.escape("zip").encode(),
        b"/" + str(ws.canary / "absolute").lstrip("/").encode(),
        str(ws.canary / "absolute2").encode(),
        b"executorch\\..\\..\\..\\evil.so",
        b"C:/Windows/evil.dll",
        b"executorch/lib/\xff\xfe\x80.so",
        b"executorch/lib/nul\x00byte.so",
        b"executorch/lib/" + b"n" * 300 + b".so",
        b"executorch/" + b"d/" * 1200 + b"deep.so",
        b"executorch/share/cmake/" + b"x" * 5000,
        b"executorch/lib/line\nbreak.so",
        b"executorch/lib/libexecutorch.so/inside.so",  # file and directory at once
        b"executorch/lib/libexecutorch.so",
        b"executorch/lib/libexecutorch.so",  # duplicate
        b"executorch/lib/",  # a directory entry with data
    ]
    picked = rng.sample(names, k=rng.randint(3, len(names)))
    return _zip_case(ws, [rawzip.Entry(n, lib, utf8=rng.random() < 0.5) for n in picked])


def _links(ws: Workspace, rng: random.Random) -> list[str]:
    targets = [
        str(ws.canary / "keep.txt"),
        "../../../../../../etc/passwd",
        "/dev/zero",
        "libb.so",
        "liba.so",
        ".",
        "..",
        "libexecutorch.so",
    ]
    entries = [
        rawzip.Entry(f"{LIB}lib{c}.so".encode(), rng.choice(targets).encode(), mode=0o120777)
        for c in "ab"
    ]
    entries.append(
        rawzip.Entry(
            b"executorch/lib/libexecutorch.so", rng.choice(targets).encode(), mode=0o120777
        )
    )
    return _zip_case(ws, entries)


def _corrupt_central(ws: Workspace, rng: random.Random) -> list[str]:
    path = ws.inputs / f"{WHEEL_STEM}{PLATFORM}.whl"
    data = bytearray(rawzip.build(_base()))
    how = rng.choice(("count", "offset", "garbage", "truncate"))
    if how == "count":
        data = bytearray(rawzip.build(_base(), count=rng.choice((0, 1, 65535))))
    elif how == "offset":
        data = bytearray(rawzip.build(_base(), cd_offset=rng.choice((0, 7, 0xFFFFFFFF))))
    elif how == "garbage":
        cd = data.rfind(b"PK\x01\x02")
        for _ in range(64):
            data[rng.randrange(cd, len(data) - 22)] = rng.randrange(256)
    else:
        data = data[: rng.randrange(len(data) // 2, len(data))] + data[-22:]
    path.write_bytes(bytes(data))
    return _check(path)


def _corrupt_deflate(ws: Workspace, rng: random.Random) -> list[str]:
    lib = LIBRARIES["elf"][1]
    data = bytearray(rawzip.deflate(member(PLATFORM, lib)))
    for _ in range(rng.choice((1, 8, 64))):
        data[rng.randrange(len(data))] = rng.randrange(256)
    e = rawzip.Entry(b"", bytes(data), rawzip.DEFLATED, size=len(member(PLATFORM, lib)))
    extra = [_named(e, lib)]
    config = bytearray(rawzip.deflate(member(PLATFORM, CONFIG_MEMBERS[0])))
    config[len(config) // 2] ^= 0xFF
    if rng.random() < 0.5:
        extra.append(
            rawzip.Entry(
                CONFIG_MEMBERS[0].encode(),
                bytes(config),
                rawzip.DEFLATED,
                size=len(member(PLATFORM, CONFIG_MEMBERS[0])),
            )
        )
    return _zip_case(ws, extra)


def _tar(ws: Workspace, rng: random.Random) -> list[str]:
    path = ws.inputs / "sdk.tar.gz"
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz", format=tarfile.GNU_FORMAT) as tar:
        for name, data in [
            *dist_info(PLATFORM),
            *((n, member(PLATFORM, n)) for n in CONFIG_MEMBERS),
        ]:
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
        specials = [
            (tarfile.CHRTYPE, LIB + "libexecutorch.so", ""),
            (tarfile.FIFOTYPE, LIB + "libexecutorch_threadpool.so", ""),
            (tarfile.SYMTYPE, LIB + "liba.so", LIB + "libb.so"),
            (tarfile.SYMTYPE, LIB + "libb.so", LIB + "liba.so"),
            (tarfile.SYMTYPE, LIB + "libescape.so", ws.escape("tarlink")),
            (tarfile.LNKTYPE, LIB + "libhard.so", "/etc/passwd"),
            (
                tarfile.SYMTYPE,
                "executorch/share/cmake/executorch-config.cmake",
                "/proc/self/environ",
            ),
            (tarfile.REGTYPE, "../" * 30 + ws.escape("tarfile"), ""),
            (tarfile.REGTYPE, "executorch/lib/\udcff\udcfe.so", ""),
            (tarfile.REGTYPE, "executorch/" + "d/" * 1200 + "deep.so", ""),
        ]
        for kind, name, link in rng.sample(specials, k=rng.randint(2, len(specials))):
            info = tarfile.TarInfo(name)
            info.type = kind
            info.linkname = link
            info.devmajor, info.devminor = 1, 5
            tar.addfile(info, io.BytesIO(b"") if kind == tarfile.REGTYPE else None)
    path.write_bytes(buf.getvalue())
    return _check(path)


def _tar_huge_header(ws: Workspace, rng: random.Random) -> list[str]:
    """A GNU longname or pax header declaring 1.5 GB, followed by nothing."""
    kind = rng.choice((tarfile.GNUTYPE_LONGNAME, tarfile.XHDTYPE))
    info = tarfile.TarInfo("././@LongLink")
    info.type = kind
    info.size = 1_500_000_000
    header = info.tobuf(tarfile.USTAR_FORMAT)
    path = ws.inputs / "sdk.tar"
    path.write_bytes(header + b"a" * rng.choice((0, 512, 4 * MIB)))
    return _check(path)


def _install_tree(ws: Workspace, rng: random.Random) -> list[str]:
    tree = ws.inputs / "tree"
    lib = tree / "executorch" / "lib"
    cmake = tree / "executorch" / "share" / "cmake"
    lib.mkdir(parents=True)
    cmake.mkdir(parents=True)
    for n in CONFIG_MEMBERS:
        (tree / n).write_bytes(member(PLATFORM, n))
    how = rng.choice(("fifo", "zero", "loop", "escape", "deep", "unreadable"))
    target = lib / "libexecutorch.so"
    if how == "fifo":
        os.mkfifo(target)
        os.mkfifo(cmake / "executorch-config-version.cmake.tmp")
    elif how == "zero":
        os.symlink("/dev/zero", target)
        os.symlink("/dev/urandom", lib / "libexecutorch_threadpool.so")
    elif how == "loop":
        os.symlink("liba.so", lib / "libb.so")
        os.symlink("libb.so", lib / "liba.so")
        os.symlink(".", lib / "self")
        os.symlink(str(tree), lib / "up")
    elif how == "escape":
        os.symlink(str(ws.canary / "keep.txt"), target)
        os.symlink(str(ws.canary), tree / "executorch" / "include")
    elif how == "deep":
        deep = tree / "executorch" / "include"
        deep.mkdir()
        fd = os.open(deep, os.O_RDONLY)
        try:
            for _ in range(1200):
                os.mkdir("d", dir_fd=fd)
                nxt = os.open("d", os.O_RDONLY, dir_fd=fd)
                os.close(fd)
                fd = nxt
        finally:
            os.close(fd)
    else:
        target.write_bytes(member(PLATFORM, LIBRARIES["elf"][1]))
        target.chmod(0)
        (cmake / "executorch-config-version.cmake").chmod(0)
    return _check(tree)


def _zip_in_plain_zip(ws: Workspace, rng: random.Random) -> list[str]:
    path = ws.inputs / "sdk.zip"
    with zipfile.ZipFile(path, "w") as out:
        out.writestr("a.zip", rawzip.build(_base()))
    return _check(path)


def _record(ws: Workspace, rng: random.Random) -> list[str]:
    """RECORD and local headers that disagree with the members: wrong hashes and sizes,
    rows outside the wheel, a RECORD of hostile text or 200,000 rows, a local header naming
    another file, a local entry the central directory leaves out."""
    base = _base()
    dist = next(e.name.decode() for e in base if b".dist-info/" in e.name).split("/")[0]
    rows = [f"{e.name.decode()},sha256=AAAA,{e.size}" for e in base]
    variant = rng.choice(("hashes", "outside", "hostile", "huge", "header", "hidden"))
    if variant == "outside":
        rows += ["../../../victim.txt,,", "/etc/passwd,,", "C:\\x.dll,,", "a/../../b,,"]
    elif variant == "hostile":
        rows += ['"unterminated', "\x1b]0;pwned\x07,,", "x\x00y,,", "::error::forged,,"]
    elif variant == "huge":
        rows += [f"pkg/f{i}.py,sha256=AAAA,1" for i in range(200_000)]
    record = rawzip.entry(f"{dist}/RECORD", "\n".join(rows).encode(), compress=True)
    entries = [*base, record]
    if variant == "header":
        data = bytearray(rawzip.build(entries))
        at = data.index(b"PK\x03\x04")
        data[at + 30] ^= 0x20  # the first member's local name, one letter's case changed
        path = ws.inputs / f"{WHEEL_STEM}{PLATFORM}.whl"
        path.write_bytes(bytes(data))
        return _check(path)
    if variant == "hidden":
        # The last member's central record cut out: its local entry stays, named by none.
        hidden = rawzip.entry(LIB + "libhidden.so", b"\x7fELF not really", compress=True)
        whole = rawzip.build([*entries, hidden])
        last = whole.rindex(b"PK\x01\x02")
        end = whole.rindex(b"PK\x05\x06")
        eocd = bytearray(whole[end:])
        first = int.from_bytes(eocd[16:20], "little")
        struct.pack_into("<HHL", eocd, 8, len(entries), len(entries), last - first)
        path = ws.inputs / f"{WHEEL_STEM}{PLATFORM}.whl"
        path.write_bytes(whole[:last] + bytes(eocd))
        return _check(path)
    return _zip_case(ws, [record])


GENERATORS: tuple[Callable[[Workspace, random.Random], list[str]], ...] = (
    _ratio_bomb,
    _declared_size,
    _many_members,
    _nested,
    _bad_names,
    _links,
    _corrupt_central,
    _corrupt_deflate,
    _tar,
    _tar_huge_header,
    _install_tree,
    _zip_in_plain_zip,
    _record,
)


def cases(count: int, seed: int) -> Iterator[Case]:
    for i in range(count):
        generator = GENERATORS[i % len(GENERATORS)]
        case_seed = seed * 100_000 + i

        def build(
            ws: Workspace,
            g: Callable[[Workspace, random.Random], list[str]] = generator,
            s: int = case_seed,
        ) -> list[str]:
            return g(ws, random.Random(s))

        yield Case("archives", f"{generator.__name__.strip('_')}-{i}", case_seed, build)
