"""Where temporary files go: a memory-backed directory when the host has one.

A CMake placeholder tree is thousands of empty files and a binary handed to the
binary reader's child process is megabytes: on a loaded disk creating and removing them costs
seconds, in /dev/shm milliseconds. A TMPDIR the user set is where they want
temporary files: it wins.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path


def scratch_dir() -> str | None:
    """The directory for `tempfile`'s `dir=`: /dev/shm when usable, else its default."""
    if os.environ.get("TMPDIR"):
        return None
    shm = Path("/dev/shm")
    return str(shm) if shm.is_dir() and os.access(shm, os.W_OK | os.X_OK) else None


# Removals handed to threads of their own, each waited for by `removals_done`.
_REMOVING: list[threading.Thread] = []
_REMOVING_LOCK = threading.Lock()


@contextlib.contextmanager
def scratch_tree(prefix: str) -> Iterator[str]:
    """A temporary directory in `scratch_dir()`, removed once left in a thread of its own:
    an evaluation's holds a wheel's placeholder tree, thousands of files whose removal
    (tens of milliseconds) would delay results that are ready. `removals_done` waits for
    every removal (the command does before it returns, also when it is interrupted)."""
    tree = tempfile.TemporaryDirectory(prefix=prefix, dir=scratch_dir())
    try:
        yield tree.name
    finally:
        # TemporaryDirectory's own removal: it makes a read-only directory removable.
        remover = threading.Thread(target=tree.cleanup, name="shiplint-scratch-removal")
        with _REMOVING_LOCK:
            _REMOVING.append(remover)
        remover.start()


def removals_done() -> None:
    """Wait until every tree `scratch_tree` handed over is removed."""
    while True:
        with _REMOVING_LOCK:
            if not _REMOVING:
                return
            remover = _REMOVING.pop()
        remover.join()
