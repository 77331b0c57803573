"""lief runs in a worker process: the same records as in process, and a crash costs one file."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

from shiplint.artifacts.archive import open_artifact
from shiplint.artifacts.inventory import read_inventory
from shiplint.artifacts.lief_reader import read_binary, read_relocated_pointers
from shiplint.artifacts.records import BinaryError
from shiplint.artifacts.worker import WorkerReader

from tests.artifact_libs import built_libs, pack_wheel
from tests.builders import library, manifest
from tests.material import wheel

__all__ = ["built_libs"]

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


def test_worker_reads_what_the_process_reads() -> None:
    path = wheel("1.5.1", "manylinux_2_28_x86_64")
    with open_artifact(path) as tree, WorkerReader() as reader:
        for name in (
            "executorch/lib/libexecutorch.so",
            "executorch/lib/libexecutorch_kernels_quantized.so",
        ):
            data = tree.read(name)
            assert reader.binary(data, name) == read_binary(data, name)
            assert reader.pointers(data, name) == read_relocated_pointers(data)


def test_a_crashing_worker_costs_one_file_per_crash(
    tmp_path: Path, built_libs: dict[str, Path]
) -> None:
    names = [n for n in sorted(built_libs) if n.endswith(".so")][:2]
    members = {f"pkg/lib/{n}": built_libs[n] for n in names}
    path = pack_wheel(tmp_path / "pkg-1.0-py3-none-manylinux_2_28_x86_64.whl", members)
    crashing = WorkerReader([sys.executable, "-c", CRASHING_WORKER])
    with open_artifact(path) as tree, crashing:
        model = read_inventory(tree, manifest((library("pkg_runtime"),)), crashing)
    # Every file was tried in a fresh worker and reported; the run itself went on.
    assert {u.member for u in model.unreadable} == set(members)
    for unreadable in model.unreadable:
        assert "lief crashed reading this file (killed by SIGSEGV)" in unreadable.reason
    assert model.binaries == ()


def test_a_worker_that_died_between_files_is_replaced(built_libs: dict[str, Path]) -> None:
    data = built_libs[sorted(built_libs)[0]].read_bytes()
    with WorkerReader() as reader:
        first = reader.binary(data, "a.so")
        assert not isinstance(first, BinaryError)
        process = reader._process
        assert process is not None
        process.kill()
        process.wait()
        assert reader.binary(data, "a.so") == first


def test_a_stopped_worker_costs_its_file_and_a_fresh_one_goes_on(
    built_libs: dict[str, Path],
) -> None:
    import os
    import signal

    data = built_libs[sorted(built_libs)[0]].read_bytes()
    with WorkerReader(timeout=3.0) as reader:
        assert reader.binary(data, "libfirst.so") == read_binary(data, "libfirst.so")
        process = reader._process
        assert process is not None
        os.kill(process.pid, signal.SIGSTOP)  # as a debugger or a job control stop would
        # Larger than a pipe holds: sending it to a worker that does not read must not block.
        stalled = reader.binary(data + bytes(4 << 20), "libstopped.so")
        assert isinstance(stalled, BinaryError)
        assert "did not finish reading this file within 3 s" in stalled.reason
        assert process.poll() is not None  # killed, not left stopped
        assert reader.binary(data, "libnext.so") == read_binary(data, "libnext.so")
