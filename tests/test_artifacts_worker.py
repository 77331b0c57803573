"""lief runs in a worker process: the same records as in process, and a crash costs one file.

ELF files the struct reader is sure of are read in the parent and never reach the worker,
so the worker's own behaviour is exercised with real DLLs, which only lief reads.
"""

from __future__ import annotations

import os
import struct
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest
from shiplint.artifacts.archive import open_artifact
from shiplint.artifacts.inventory import read_inventory
from shiplint.artifacts.reading import Reader, elf_reader
from shiplint.artifacts.reading.lief_reader import read_binary, read_relocated_pointers
from shiplint.artifacts.reading.session import lief_expected
from shiplint.artifacts.reading.worker import WorkerReader
from shiplint.artifacts.records import BinaryError, BinaryRecord

from tests.artifact_libs import built_libs, pack_wheel
from tests.builders import library, manifest
from tests.material import wheel
from tests.pe_libs import pe_dlls

__all__ = ["built_libs", "pe_dlls"]


@pytest.fixture(autouse=True)
def _own_user_cache(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Nothing kept by another test: what lief read of these fixtures' files is kept, and a
    kept file is never sent to the worker these tests are about."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "user-cache"))


# A stand-in worker that reads one request and then dies the way a lief crash would.
CRASHING_WORKER = textwrap.dedent(
    """
    import os, pickle, signal, struct, sys
    ready = pickle.dumps("ready")  # what a real worker says once lief is imported
    sys.stdout.buffer.write(struct.pack("!Q", len(ready)) + ready)
    sys.stdout.buffer.flush()
    sys.stdin.buffer.read(8)
    os.kill(os.getpid(), signal.SIGSEGV)
    """
)


def test_worker_reads_what_the_process_reads(pe_dlls: dict[str, Path]) -> None:
    path = wheel("1.5.1", "manylinux_2_28_x86_64")
    with open_artifact(path) as tree, WorkerReader() as reader:
        for name in (
            "executorch/lib/libexecutorch.so",
            "executorch/lib/libexecutorch_kernels_quantized.so",
        ):
            data = tree.read(name)
            assert reader.binary(data, name) == read_binary(data, name)
            assert reader.pointers(data, name) == read_relocated_pointers(data)
        for name, dll in pe_dlls.items():
            data = dll.read_bytes()
            assert reader.binary(data, name) == read_binary(data, name)
            assert reader.pointers(data, name) == read_relocated_pointers(data)


def test_a_crashing_worker_costs_one_file_per_crash(
    tmp_path: Path, pe_dlls: dict[str, Path]
) -> None:
    members = {f"pkg/lib/{n}": pe_dlls[n] for n in ("core.dll", "user.dll")}
    path = pack_wheel(tmp_path / "pkg-1.0-py3-none-win_amd64.whl", members)
    crashing = WorkerReader([sys.executable, "-c", CRASHING_WORKER])
    with open_artifact(path) as tree, crashing:
        the_manifest = manifest((library("core", platforms=("windows",)),))
        model = read_inventory(tree, the_manifest, Reader(crashing))
    # Every file was tried in a fresh worker and reported; the run itself went on.
    assert {u.member for u in model.unreadable} == set(members)
    for unreadable in model.unreadable:
        assert "lief crashed reading this file (killed by SIGSEGV)" in unreadable.reason
    assert model.binaries == ()


def test_elf_files_never_reach_the_worker(tmp_path: Path, built_libs: dict[str, Path]) -> None:
    names = [n for n in sorted(built_libs) if n.endswith(".so")][:2]
    members = {f"pkg/lib/{n}": built_libs[n] for n in names}
    path = pack_wheel(tmp_path / "pkg-1.0-py3-none-manylinux_2_28_x86_64.whl", members)
    # A worker that would crash on its first file: none is sent to it, none is started.
    crashing = WorkerReader([sys.executable, "-c", CRASHING_WORKER], expect_lief=False)
    with open_artifact(path) as tree, crashing:
        model = read_inventory(tree, manifest((library("pkg_runtime"),)), Reader(crashing))
        assert crashing._process is None
    assert model.unreadable == ()
    assert {record.name for record in model.binaries} == set(members)
    for record in model.binaries:
        assert record == read_binary(built_libs[record.file_name].read_bytes(), record.name)


# The real worker, except that the struct ELF reader dies as a crash would if it is called.
STRUCT_READER_CRASHES_WORKER = textwrap.dedent(
    """
    import os, signal, sys
    from shiplint.artifacts.reading import elf_reader, lief_reader, worker
    def crash(*args, **options):
        os.kill(os.getpid(), signal.SIGSEGV)
    lief_reader.read_elf = elf_reader.read_elf = elf_reader.read_elf_pointers = crash
    sys.exit(worker.main())
    """
)


def test_the_worker_reads_a_file_the_parent_declined_with_lief_alone(
    built_libs: dict[str, Path],
) -> None:
    """The parent sends the worker only ELF files the struct reader declined there; the
    worker goes straight to lief instead of parsing them with that reader again."""
    data = built_libs["libpkg_comp.so"].read_bytes()
    # A section header size that is not the structure's: the struct reader is not sure.
    declined = data[:0x3A] + struct.pack("<H", 48) + data[0x3C:]
    assert elf_reader.read_elf(declined, "libpkg_comp.so") is None
    assert elf_reader.read_elf_pointers(declined) is None
    with WorkerReader([sys.executable, "-c", STRUCT_READER_CRASHES_WORKER]) as reader:
        record = reader.binary(declined, "libpkg_comp.so")
        pointers = reader.pointers(declined, "libpkg_comp.so")
    assert record == read_binary(declined, "libpkg_comp.so")
    assert pointers == read_relocated_pointers(declined)
    assert isinstance(record, BinaryRecord)


@pytest.mark.parametrize(
    ("names", "expected"),
    [
        (["executorch-1.5.1-cp311-cp311-manylinux_2_28_x86_64.whl"], False),
        (["tbb-2021.13.1-py2.py3-none-manylinux1_x86_64.manylinux2014_x86_64.whl"], False),
        (["a-1-py3-none-manylinux_2_28_x86_64.whl", "a-1-py3-none-macosx_14_0_arm64.whl"], True),
        (["a-1-py3-none-win_amd64.whl"], True),
        (["a-1-py3-none-any.whl"], True),
        (["install-tree"], True),
        (["a.tar.gz"], True),
    ],
)
def test_lief_is_expected_unless_every_artifact_is_a_linux_wheel(
    names: list[str], expected: bool
) -> None:
    assert lief_expected([Path(n) for n in names]) is expected


def test_a_worker_that_died_between_files_is_replaced(pe_dlls: dict[str, Path]) -> None:
    data = pe_dlls["core.dll"].read_bytes()
    with WorkerReader() as reader:
        first = reader.binary(data, "a.so")
        assert not isinstance(first, BinaryError)
        process = reader._process
        assert process is not None
        process.kill()
        process.wait()
        assert reader.binary(data, "a.so") == first


def test_a_stopped_worker_costs_its_file_and_a_fresh_one_goes_on(
    pe_dlls: dict[str, Path],
) -> None:
    import os
    import signal

    data = pe_dlls["core.dll"].read_bytes()
    # The limit is far off: the stop is found out by the worker's state, not by the clock.
    with WorkerReader(timeout=300.0) as reader:
        assert reader.binary(data, "libfirst.so") == read_binary(data, "libfirst.so")
        process = reader._process
        assert process is not None
        os.kill(process.pid, signal.SIGSTOP)  # as a debugger or a job control stop would
        # Larger than a pipe holds: sending it to a worker that does not read must not block.
        stalled = reader.binary(data + bytes(4 << 20), "libstopped.so")
        assert isinstance(stalled, BinaryError)
        assert "was stopped (SIGSTOP or a debugger) and did not continue" in stalled.reason
        assert process.poll() is not None  # killed, not left stopped
        assert reader.binary(data, "libnext.so") == read_binary(data, "libnext.so")


# The real worker, except that it dies as a lief crash would on one file name.
CRASH_ON_NAME_WORKER = textwrap.dedent(
    """
    import os, signal, sys
    from shiplint.artifacts.reading import lief_reader, worker
    real = lief_reader.read_binary
    def read(data, name, **options):
        if name == "crash.so":
            os.kill(os.getpid(), signal.SIGSEGV)
        return real(data, name, **options)
    lief_reader.read_binary = read
    sys.exit(worker.main())
    """
)


def test_a_crash_inside_a_batch_costs_that_file_and_the_rest_is_read(
    built_libs: dict[str, Path], pe_dlls: dict[str, Path]
) -> None:
    # ELF files read in the parent between the worker's DLLs: answers still come in order.
    data = {name: built_libs[name].read_bytes() for name in sorted(built_libs)[:2]}
    data |= {name: pe_dlls[name].read_bytes() for name in ("core.dll", "user.dll")}
    items = [*data.items()]
    items.insert(1, ("crash.so", pe_dlls["core_v1.dll"].read_bytes()))
    items.insert(3, ("crash.so", pe_dlls["core_v1.dll"].read_bytes()))
    with WorkerReader([sys.executable, "-c", CRASH_ON_NAME_WORKER]) as reader:
        results = list(reader.binaries(items))
    assert [name for name, _ in results] == [name for name, _ in items]
    crashed = [record for name, record in results if name == "crash.so"]
    assert len(crashed) == 2
    for record in crashed:
        assert isinstance(record, BinaryError)
        assert "lief crashed reading this file (killed by SIGSEGV)" in record.reason
    for name, record in results:
        if name != "crash.so":
            assert record == read_binary(data[name], name)


def test_staged_files_stay_within_the_bound_and_are_removed(
    pe_dlls: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    from shiplint.artifacts.reading import worker

    monkeypatch.setattr(worker, "IN_FLIGHT_FILES", 2)
    data = pe_dlls["core.dll"].read_bytes()
    staged_counts: list[int] = []
    with WorkerReader() as reader:

        def items() -> Iterator[tuple[str, bytes]]:
            for index in range(6):
                if reader._staging is not None:
                    staged_counts.append(len(os.listdir(reader._staging.name)))
                yield f"lib{index}.dll", data

        results = list(reader.binaries(items()))
        assert reader._staging is not None
        assert os.listdir(reader._staging.name) == []
        staging = reader._staging.name
    assert [name for name, _ in results] == [f"lib{i}.dll" for i in range(6)]
    assert all(record == read_binary(data, name) for name, record in results)
    assert staged_counts and max(staged_counts) <= 2
    assert not os.path.exists(staging)


def test_an_abandoned_batch_leaves_no_answer_for_the_next_request(
    pe_dlls: dict[str, Path],
) -> None:
    names = sorted(pe_dlls)[:3]
    data = {name: pe_dlls[name].read_bytes() for name in names}
    with WorkerReader() as reader:
        batch = reader.binaries(data.items())
        first_name, _ = next(batch)
        batch.close()  # the caller stopped reading with requests still unanswered
        last = names[-1]
        assert reader.binary(data[last], last) == read_binary(data[last], last)
    assert first_name == names[0]
