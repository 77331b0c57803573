"""Members read ahead on a thread come back in order, each read once, failures as values."""

from __future__ import annotations

import hashlib
import threading
import zipfile
from pathlib import Path

from shiplint.artifacts.archive import open_artifact
from shiplint.artifacts.prefetch import Member, Unread, prefetched

from tests.material import wheel


def test_members_come_back_in_the_order_asked_with_their_digests(tmp_path: Path) -> None:
    path = tmp_path / "a.zip"
    contents = {f"lib/m{i}.so": bytes([i]) * (1000 + i) for i in range(7)}
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in contents.items():
            archive.writestr(name, data)
    asked = ["lib/m3.so", "lib/m0.so", "lib/missing.so", "lib/m6.so", "lib/m1.so"]
    with open_artifact(path) as tree:
        got = list(prefetched(tree, asked))
    assert [r.name for r in got] == asked
    for read in got:
        if read.name == "lib/missing.so":
            assert isinstance(read, Unread) and "no such member" in read.reason
            continue
        assert isinstance(read, Member)
        assert read.data == contents[read.name]
        assert read.digest == hashlib.blake2b(read.data, digest_size=16).digest()


def test_a_real_wheel_reads_the_same_ahead_as_one_by_one() -> None:
    with open_artifact(wheel("1.5.1", "x86_64")) as tree:
        names = [n for n in tree.names() if n.endswith(".so")]
        expected = [tree.read(n) for n in names]
    # A fresh tree: nothing inflated yet, so the reads ahead really inflate.
    with open_artifact(wheel("1.5.1", "x86_64")) as tree:
        got = [r.data for r in prefetched(tree, names) if isinstance(r, Member)]
    assert len(names) > 10
    assert got == expected


def test_abandoned_early_leaves_no_reading_thread(tmp_path: Path) -> None:
    path = tmp_path / "a.zip"
    with zipfile.ZipFile(path, "w") as archive:
        for i in range(20):
            archive.writestr(f"m{i}", b"x" * 100)
    with open_artifact(path) as tree:
        reads = prefetched(tree, (f"m{i}" for i in range(20)))
        first = next(reads)
        reads.close()
    assert first.name == "m0"
    assert not any(t.name.startswith("shiplint-read") for t in threading.enumerate())
