"""The reading stack's bottom layer: binaries parsed by lief in a child process, so that
a crash inside lief costs one file, not the run.

lief is native code reading hostile input: a Python exception becomes an
unreadable-binary fact in `lief_reader.py`, but a segmentation fault would end the
whole process. The pipeline therefore has each binary lief reads read by a worker
process (`python -m shiplint.artifacts.reading.worker`). If the worker dies while it holds a
file, that file is reported unreadable with the signal, and a new worker takes the
next one. The worker starts importing lief as soon as it is spawned (most of its cost:
0.6 s to a second for lief 0.16 and later), so that import overlaps the parent's
reading of the archive.

Only what the layer above (`by_struct`) declines reaches the worker: an ELF file
`elf_reader` is sure of is read in the parent, plain Python over the file's bytes (no
native code to crash), which costs less than starting a worker at all (an
interpreter's start-up alone is 0.3-0.4 s on the 2-core machine, the 1.5.1 Linux
wheel's 19 ELF files read in about 0.1 s). So the worker reads what it is sent with
lief directly: a second try of the struct reader would only cost the parse again. It
is started when the first file needs lief, or at once when its owner expects lief to be
needed (`expect_lief`, decided by `shiplint.artifacts.reading.session`): a wrong guess
costs only a later start, never a different answer.

A binary is handed over as a file in a memory-backed temporary directory, not
through the pipe: the parent writes it once, the worker reads it once, and no
megabytes are pickled. Requests are sent as soon as each file is staged, before
the worker is ready, and answered in order; the parent decompresses the next
members while the worker imports lief or parses, and the first request without
an answer is the file a dead or stuck worker held. At most `IN_FLIGHT_BYTES` of
staged files wait at a time, so a large artifact never sits whole in memory.

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
import tempfile
import time
from collections import deque
from collections.abc import Generator, Iterable, Iterator, Sequence
from pathlib import Path
from typing import IO, Any

from shiplint.artifacts.pointers import RelocatedPointers, unreadable_pointers
from shiplint.artifacts.records import BinaryError, BinaryRecord
from shiplint.fastclass import dataclass
from shiplint.scratch import scratch_dir
from shiplint.waiting import HALT_GRACE, POLL, Halt

_HEADER = struct.Struct("!Q")
# Seconds lief may take over one binary. The largest real library takes a second or two;
# a worker stuck in a loop, or stopped (SIGSTOP), is killed and its file reported.
BINARY_TIMEOUT = 20.0
# A fresh worker imports lief before it says it is ready; on a loaded machine that can take
# seconds, and it does not count against the first file's limit.
STARTUP_TIMEOUT = 20.0
_READY = "ready"
# Staged bytes (and requests) waiting for answers: enough to keep the worker busy while the
# parent decompresses, bounded so that a huge artifact is never staged whole.
IN_FLIGHT_BYTES = 256 << 20
IN_FLIGHT_FILES = 64


@dataclass(frozen=True)
class _Request:
    kind: str  # "binary" or "pointers"
    name: str
    path: str  # the staged file
    size: int


class WorkerReader:
    """Parse in a child process; a child that dies is reported against the file it held."""

    def __init__(
        self,
        argv: Sequence[str] | None = None,
        timeout: float = BINARY_TIMEOUT,
        *,
        expect_lief: bool = True,
    ) -> None:
        self._argv = list(argv or [sys.executable, "-m", "shiplint.artifacts.reading.worker"])
        self._process: subprocess.Popen[bytes] | None = None
        self._timeout = timeout
        self._expect_lief = expect_lief
        self._ready = False
        self._staging: tempfile.TemporaryDirectory[str] | None = None
        self._staged = 0

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
        ((_, record),) = self.binaries([(name, data)])
        return record

    def binaries(
        self, items: Iterable[tuple[str, bytes]]
    ) -> Generator[tuple[str, BinaryRecord | BinaryError], None, None]:
        """(name, record) per (name, bytes), in order; `items` is consumed as it goes."""
        for request, answer in self._answers("binary", items):
            if isinstance(answer, str):
                yield request.name, BinaryError(request.name, answer, transient=True)
            else:
                yield request.name, answer

    def pointers(self, data: bytes, name: str) -> RelocatedPointers:
        ((_, answer),) = self._answers("pointers", [(name, data)])
        if isinstance(answer, str):
            return unreadable_pointers(answer, transient=True)
        return answer  # type: ignore[no-any-return]

    def close(self) -> None:
        process, self._process = self._process, None
        if process is not None:
            # The worker holds no state worth a graceful exit, and tearing down an
            # interpreter with lief loaded takes a tenth of a second: stop it outright.
            process.kill()
            self._reap(process)
        staging, self._staging = self._staging, None
        if staging is not None:
            staging.cleanup()

    def __enter__(self) -> WorkerReader:
        # Started now only when lief is likely needed, so its import overlaps the
        # caller's work; otherwise when the first file needs it.
        if self._expect_lief:
            self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _answers(
        self, kind: str, items: Iterable[tuple[str, bytes]]
    ) -> Iterator[tuple[_Request, Any]]:
        """Each item staged and requested as it comes, answers in order: the worker's, or a
        reason string when the worker died or stalled holding that file."""
        waiting: deque[_Request] = deque()
        try:
            for name, data in items:
                waiting.append(self._stage(kind, name, data))
                self._send(waiting[-1])
                while waiting and (
                    len(waiting) >= IN_FLIGHT_FILES
                    or (len(waiting) > 1 and sum(r.size for r in waiting) > IN_FLIGHT_BYTES)
                ):
                    yield self._answer(waiting)
            while waiting:
                yield self._answer(waiting)
        finally:
            if waiting:
                # Abandoned with requests unanswered: their answers must never be read as
                # a later request's, so this worker goes.
                if self._process is not None:
                    self._reap(self._process)
                for request in waiting:
                    _unlink(request.path)

    def _stage(self, kind: str, name: str, data: bytes) -> _Request:
        if self._staging is None:
            self._staging = tempfile.TemporaryDirectory(
                prefix="shiplint-binaries-", dir=scratch_dir()
            )
        self._staged += 1
        path = os.path.join(self._staging.name, str(self._staged))
        Path(path).write_bytes(data)
        return _Request(kind, name, path, len(data))

    def _send(self, request: _Request) -> None:
        """Queue a request; a worker that is gone is found out when its answer is due."""
        self.start()
        process = self._process
        assert process is not None and process.stdin is not None
        with contextlib.suppress(TimeoutError, BrokenPipeError, OSError):
            frame = _framed((request.kind, request.name, request.path))
            _write_within(process.stdin.fileno(), frame, self._timeout)

    def _answer(self, waiting: deque[_Request]) -> tuple[_Request, Any]:
        """The answer to the oldest request. When the worker died or stalled on it, that
        file gets the reason, and a fresh worker is sent every later request again."""
        request = waiting.popleft()
        answer = self._receive()
        _unlink(request.path)
        if isinstance(answer, _Failure):
            for later in waiting:
                self._send(later)
            return request, answer.reason
        return request, answer

    def _receive(self) -> Any:
        process = self._process
        assert process is not None and process.stdout is not None
        try:
            if not self._ready:
                _receive_within(process.stdout.fileno(), STARTUP_TIMEOUT, process.pid)
                self._ready = True
            answer = _receive_within(process.stdout.fileno(), self._timeout, process.pid)
        except Stopped:
            self._reap(process)
            return _Failure(
                f"the lief worker reading this file was stopped (SIGSTOP or a debugger) and "
                f"did not continue within {HALT_GRACE:g} s, and was killed; the rest of the "
                "run went on"
            )
        except TimeoutError:
            self._reap(process)
            return _Failure(
                f"lief did not finish reading this file within {self._timeout:g} s (the worker "
                "was stuck or stopped, and was killed); the rest of the run went on"
            )
        except (EOFError, OSError):
            answer = None
        if answer is not None:
            return answer
        # The worker is gone: this file is what it was reading.
        self._reap(process)
        return _Failure(
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


@dataclass(frozen=True)
class _Failure:
    reason: str


def _unlink(path: str) -> None:
    with contextlib.suppress(OSError):
        os.unlink(path)


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


class Stopped(TimeoutError):
    """The worker stayed stopped (SIGSTOP): it cannot answer, however long one waits."""


def _receive_within(fd: int, seconds: float, pid: int | None = None) -> Any:
    """One answer read straight from the descriptor, or TimeoutError when it takes longer
    (Stopped, sooner, when the worker `pid` stays stopped)."""
    deadline = time.monotonic() + seconds
    halt = Halt(pid) if pid is not None else None
    (size,) = _HEADER.unpack(_read_exactly(fd, _HEADER.size, deadline, halt))
    return pickle.loads(_read_exactly(fd, size, deadline, halt))


def _read_exactly(fd: int, count: int, deadline: float, halt: Halt | None = None) -> bytes:
    chunks: list[bytes] = []
    while count:
        left = deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError
        if not select.select([fd], [], [], min(left, POLL))[0]:
            if halt is not None and halt.given_up():
                raise Stopped
            continue
        chunk = os.read(fd, min(count, 1 << 20))
        if not chunk:
            raise EOFError
        chunks.append(chunk)
        count -= len(chunk)
    return b"".join(chunks)


def main() -> int:
    # lief first: its import is most of a worker's start-up and overlaps the parent's work.
    from shiplint.artifacts.reading import lief_reader

    lief_reader.preload()
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    _send(stdout, _READY)
    while True:
        try:
            kind, name, path = _receive(stdin)
        except EOFError:
            return 0
        try:
            data = Path(path).read_bytes()
        except OSError as exc:
            # The parent stages every file before it asks; a missing one is its fault, but
            # it is still this file's answer and the worker goes on.
            reason = f"cannot be read for parsing: {exc.strerror}"
            if kind == "binary":
                _send(stdout, BinaryError(name, reason, transient=True))
            else:
                _send(stdout, unreadable_pointers(reason, transient=True))
            continue
        # The parent sends only what its struct readers declined: lief reads it directly.
        if kind == "binary":
            _send(stdout, lief_reader.read_binary(data, name))
        else:
            _send(stdout, lief_reader.read_relocated_pointers(data))


if __name__ == "__main__":
    # A parent that went away closes the pipe: end quietly, as a pipe stage does.
    if hasattr(signal, "SIGPIPE"):
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    sys.exit(main())
