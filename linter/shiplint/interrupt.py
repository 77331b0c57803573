"""SIGINT and SIGTERM end a run the way a user expects: exit 130 or 143, nothing left behind.

The handler first calls what the modules that start processes registered with
`on_interrupt` (the CMake runner stops every live run: those are in sessions and
namespaces of their own, out of reach of the terminal's signal), then raises
`Interrupted` in the main thread. It imports nothing: a signal may arrive in the middle of
an import. Raising unwinds the run normally: temporary directories are removed by the
context managers that made them, and the binary reader's child process by its own.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Callable, Iterator
from types import FrameType

_STOPPERS: list[Callable[[], None]] = []


def on_interrupt(stop: Callable[[], None]) -> None:
    """Have `stop` called when SIGINT or SIGTERM arrives, before the run unwinds."""
    _STOPPERS.append(stop)


class Interrupted(BaseException):
    """A BaseException, like KeyboardInterrupt: no `except Exception` may swallow it."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.exit_code = 128 + signum


_SIGNALS = (signal.SIGINT, signal.SIGTERM)


@contextlib.contextmanager
def interruptible() -> Iterator[None]:
    """While inside, SIGINT and SIGTERM stop the run (main thread only; elsewhere a no-op)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    received: list[int] = []

    def handler(signum: int, frame: FrameType | None) -> None:
        if received:
            return  # a second signal while unwinding: the first one is being obeyed
        received.append(signum)
        for stop in _STOPPERS:
            stop()
        raise Interrupted(signum)

    # A signal the caller ignores (`nohup`, a background job) stays ignored.
    previous = {
        sig: signal.signal(sig, handler)
        for sig in _SIGNALS
        if signal.getsignal(sig) is not signal.SIG_IGN
    }
    try:
        yield
        if received:
            # The raise landed where Python swallows exceptions (a finalizer, a callback
            # that only logs them): the run went on, but it was still interrupted.
            raise Interrupted(received[0])
    finally:
        for sig, old in previous.items():
            signal.signal(sig, old)
