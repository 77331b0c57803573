"""Tasks that overlap only while they wait outside Python.

What threads buy a check is CMake, the compilers and the binary reader running in
processes of their own while Python goes on. Two threads that both run Python buy
nothing (the GIL runs one at a time) and cost: the GIL is handed from one to the other
at the system calls either makes. Measured on a re-run of the ExecuTorch wheel, whose
config evaluations are replayed from the user cache: with them beside the binary
reading, 0.39 s; one after the other, 0.345 s.

So `Turns` starts each task in a thread of its own but lets the next one start (and
its caller go on) only once the task waits outside Python, or has ended. A task says
it is about to wait with `waits()`: waiting.py says so before it waits on a process,
and `holding` before it waits on a lock another thread holds (that thread waits on a
process: the confinement trial, a compiler detection). A re-run then does its work one
task after another; a first run still keeps each CMake running while the next task
and the binary reading go on.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterable, Iterator
from types import TracebackType
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    from concurrent.futures import Future

T = TypeVar("T")
U = TypeVar("U")

# The calling thread's task: how it lets whoever started it go on (None: already let,
# or the thread runs no task started by `Turns`).
_task = threading.local()


def waits() -> None:
    """This thread is about to wait outside Python: the task that started it may go on."""
    let_go: Callable[[], None] | None = getattr(_task, "let_go", None)
    if let_go is not None:
        _task.let_go = None
        let_go()


@contextlib.contextmanager
def holding(lock: threading.Lock) -> Iterator[None]:
    """`lock` held; when another thread holds it, this one says it waits first."""
    if not lock.acquire(blocking=False):
        waits()
        lock.acquire()
    try:
        yield
    finally:
        lock.release()


class Turns:
    """Tasks started one at a time, each in a thread of its own; on leaving, every
    thread has ended."""

    def __init__(self, name: str) -> None:
        self._name = name
        self._threads: list[threading.Thread] = []

    def __enter__(self) -> Turns:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        for thread in self._threads:
            thread.join()

    def start(self, function: Callable[..., T], *arguments: object) -> Future[T]:
        """`function(*arguments)` started, once it waits outside Python or has ended."""
        # Imported here: waiting.py imports this module in runs that start no task (a
        # sources run), and they import no concurrent.futures.
        from concurrent.futures import Future

        future: Future[T] = Future()
        turn = threading.Event()

        def run() -> None:
            _task.let_go = turn.set
            try:
                result = function(*arguments)
            except BaseException as error:  # handed to whoever asks the result, as a pool does
                future.set_exception(error)
            else:
                future.set_result(result)
            finally:
                _task.let_go = None
                turn.set()

        thread = threading.Thread(target=run, name=f"{self._name}-{len(self._threads)}")
        self._threads.append(thread)
        thread.start()
        turn.wait()
        return future

    def map(self, function: Callable[[U], T], items: Iterable[U]) -> list[T]:
        """`function` of each item, started in turn; the results in the items' order."""
        futures = [self.start(function, item) for item in items]
        return [self.result(future) for future in futures]

    @staticmethod
    def result(future: Future[T]) -> T:
        """The task's result; while it is still running (it waits outside Python, or
        went on after), this thread's own task waits too."""
        if not future.done():
            waits()
        return future.result()
