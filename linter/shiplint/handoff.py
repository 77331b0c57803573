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
from typing import Generic, TypeVar

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


class Task(Generic[T]):
    """A function run in a thread of its own: whether it has ended, and what it
    returned or raised."""

    def __init__(self, function: Callable[..., T], arguments: tuple[object, ...]) -> None:
        self._function = function
        self._arguments = arguments
        self._ended = threading.Event()
        self._value: T | None = None
        self._error: BaseException | None = None
        # Set once the function waits outside Python or has ended: its starter goes on.
        self.turn = threading.Event()

    def run(self) -> None:
        _task.let_go = self.turn.set
        try:
            self._value = self._function(*self._arguments)
        except BaseException as error:  # raised again in whoever asks the result
            self._error = error
        finally:
            _task.let_go = None
            self._ended.set()
            self.turn.set()

    def done(self) -> bool:
        return self._ended.is_set()

    def result(self) -> T:
        """What the function returned, once it has; what it raised is raised here."""
        self._ended.wait()
        if self._error is not None:
            raise self._error
        return self._value  # type: ignore[return-value]  # set, since nothing was raised


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

    def start(self, function: Callable[..., T], *arguments: object) -> Task[T]:
        """`function(*arguments)` started, once it waits outside Python or has ended."""
        task = Task(function, arguments)
        thread = threading.Thread(target=task.run, name=f"{self._name}-{len(self._threads)}")
        self._threads.append(thread)
        thread.start()
        task.turn.wait()
        return task

    def map(self, function: Callable[[U], T], items: Iterable[U]) -> list[T]:
        """`function` of each item, started in turn; the results in the items' order."""
        tasks = [self.start(function, item) for item in items]
        return [self.result(task) for task in tasks]

    @staticmethod
    def result(task: Task[T]) -> T:
        """The task's result; while it is still running (it waits outside Python, or
        went on after), this thread's own task waits too."""
        if not task.done():
            waits()
        return task.result()
