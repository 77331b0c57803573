"""Binaries parsed in a child process, so that a crash inside lief costs one file, not the run.

lief is native code reading hostile input: a Python exception becomes an
unreadable-binary fact in `lief_reader.py`, but a segmentation fault would end the
whole process. The pipeline therefore sends each binary to a worker process
(`python -m shiplint.artifacts.worker`) one at a time. If the worker dies while it
holds a file, that file is reported unreadable with the signal, and a new worker
takes the next one. The worker starts importing lief as soon as it is spawned, so
that import overlaps the parent's reading of the archive.

The protocol is length-prefixed pickles over the worker's stdin and stdout; both
ends are this package, so nothing foreign is ever unpickled.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import select
import signal
import struct
import subprocess
import sys
import time
from collections.abc import Sequence
from typing import IO, Any, Protocol

from shiplint.artifacts.pointers import RelocatedPointers, unreadable_pointers
from shiplint.artifacts.records import BinaryError, BinaryRecord

_HEADER = struct.Struct("!Q")
# Seconds lief may take over one binary. The largest real library takes a second or two;
# a worker stuck in a loop, or stopped (SIGSTOP), is killed and its file reported.
BINARY_TIMEOUT = 20.0
# A fresh worker imports lief before it says it is ready; on a loaded machine that can take
# seconds, and it does not count against the first file's limit.
STARTUP_TIMEOUT = 20.0
_READY = "ready"


class BinaryReader(Protocol):
    """How the artifact and operator areas read binaries: in process, or in a worker."""

    def binary(self, data: bytes, name: str) -> BinaryRecord | BinaryError: ...

    def pointers(self, data: bytes, name: str) -> RelocatedPointers: ...


class InProcess:
    """Parse in this process (tests, and the link probe's own freshly built consumers)."""

    def binary(self, data: bytes, name: str) -> BinaryRecord | BinaryError:
        from shiplint.artifacts.lief_reader import read_binary

        return read_binary(data, name)

    def pointers(self, data: bytes, name: str) -> RelocatedPointers:
        from shiplint.artifacts.lief_reader import read_relocated_pointers

        return read_relocated_pointers(data)


IN_PROCESS = InProcess()


class WorkerReader:
    """Parse in a child process; a child that dies is reported against the file it held."""

    def __init__(self, argv: Sequence[str] | None = None, timeout: float = BINARY_TIMEOUT) -> None:
        self._argv = list(argv or [sys.executable, "-m", "shiplint.artifacts.worker"])
        self._process: subprocess.Popen[bytes] | None = None
        self._timeout = timeout
        self._ready = False

    def start(self) -> None:
        if self._process is None or self._process.poll() is not None:
            self._ready = False
            self._process = subprocess.Popen(
                self._argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
            )

    def binary(self, data: bytes, name: str) -> BinaryRecord | BinaryError:
        result = self._call("binary", data, name)
        if isinstance(result, str):
            return BinaryError(name, result)
        return result  # type: ignore[no-any-return]

    def pointers(self, data: bytes, name: str) -> RelocatedPointers:
        result = self._call("pointers", data, name)
        if isinstance(result, str):
            return unreadable_pointers(result)
        return result  # type: ignore[no-any-return]

    def close(self) -> None:
        process, self._process = self._process, None
        if process is not None:
            # The worker holds no state worth a graceful exit, and tearing down an
            # interpreter with lief loaded takes a tenth of a second: stop it outright.
            process.kill()
            self._reap(process)

    def __enter__(self) -> WorkerReader:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _call(self, kind: str, data: bytes, name: str) -> Any:
        """The worker's answer, or a reason string when the worker died holding this file."""
        self.start()
        process = self._process
        assert process is not None and process.stdin is not None and process.stdout is not None
        try:
            if not self._ready:
                _receive_within(process.stdout.fileno(), STARTUP_TIMEOUT)
                self._ready = True
            # A worker that does not read (stopped) fills the pipe: sending has a limit too.
            _write_within(process.stdin.fileno(), _framed((kind, name, data)), self._timeout)
            answer = _receive_within(process.stdout.fileno(), self._timeout)
        except TimeoutError:
            self._reap(process)
            return (
                f"lief did not finish reading this file within {self._timeout:g} s (the worker "
                "was stuck or stopped, and was killed); the rest of the run went on"
            )
        except (BrokenPipeError, EOFError, OSError):
            answer = None
        if answer is not None:
            return answer
        # The worker is gone: this file is what it was reading.
        self._reap(process)
        return (
            f"lief crashed reading this file ({_describe(process.returncode)}); it was read "
            "in a separate process, so the rest of the run went on"
        )

    def _reap(self, process: subprocess.Popen[bytes]) -> None:
        process.kill()  # already dead after a crash; a no-op then
        process.wait()
        for stream in (process.stdin, process.stdout):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()
        self._process = None


def _describe(returncode: int | None) -> str:
    if returncode is not None and returncode < 0:
        try:
            return f"killed by {signal.Signals(-returncode).name}"
        except ValueError:
            return f"killed by signal {-returncode}"
    return f"exit status {returncode}"


def _send(stream: IO[bytes], value: object) -> None:
    payload = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
    stream.write(_HEADER.pack(len(payload)))
    stream.write(payload)
    stream.flush()


def _receive(stream: IO[bytes]) -> Any:
    header = stream.read(_HEADER.size)
    if len(header) < _HEADER.size:
        raise EOFError
    (size,) = _HEADER.unpack(header)
    payload = stream.read(size)
    if len(payload) < size:
        raise EOFError
    return pickle.loads(payload)


def _framed(value: object) -> bytes:
    payload = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
    return _HEADER.pack(len(payload)) + payload


def _write_within(fd: int, data: bytes, seconds: float) -> None:
    # Non-blocking: a write larger than the pipe's free room returns what fitted instead
    # of waiting for a reader that may never come.
    os.set_blocking(fd, False)
    deadline = time.monotonic() + seconds
    view = memoryview(data)
    while view:
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([], [fd], [], left)[1]:
            raise TimeoutError
        try:
            view = view[os.write(fd, view[: 1 << 20]) :]
        except BlockingIOError:
            continue


def _receive_within(fd: int, seconds: float) -> Any:
    """One answer read straight from the descriptor, or TimeoutError when it takes longer."""
    deadline = time.monotonic() + seconds
    (size,) = _HEADER.unpack(_read_exactly(fd, _HEADER.size, deadline))
    return pickle.loads(_read_exactly(fd, size, deadline))


def _read_exactly(fd: int, count: int, deadline: float) -> bytes:
    chunks: list[bytes] = []
    while count:
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([fd], [], [], left)[0]:
            raise TimeoutError
        chunk = os.read(fd, min(count, 1 << 20))
        if not chunk:
            raise EOFError
        chunks.append(chunk)
        count -= len(chunk)
    return b"".join(chunks)


def main() -> int:
    # lief first: its import is most of a worker's start-up and overlaps the parent's work.
    from shiplint.artifacts import lief_reader

    lief_reader.preload()
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    _send(stdout, _READY)
    while True:
        try:
            kind, name, data = _receive(stdin)
        except EOFError:
            return 0
        if kind == "binary":
            _send(stdout, lief_reader.read_binary(data, name))
        else:
            _send(stdout, lief_reader.read_relocated_pointers(data))


if __name__ == "__main__":
    # A parent that went away closes the pipe: end quietly, as a pipe stage does.
    if hasattr(signal, "SIGPIPE"):
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    sys.exit(main())
