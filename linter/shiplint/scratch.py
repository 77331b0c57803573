"""Where temporary files go: a memory-backed directory when the host has one.

A CMake placeholder tree is thousands of empty files and a binary handed to the
binary reader's child process is megabytes: on a loaded disk creating and removing them costs
seconds, in /dev/shm milliseconds. A TMPDIR the user set is where they want
temporary files: it wins.
"""

from __future__ import annotations

import os
from pathlib import Path


def scratch_dir() -> str | None:
    """The directory for `tempfile`'s `dir=`: /dev/shm when usable, else its default."""
    if os.environ.get("TMPDIR"):
        return None
    shm = Path("/dev/shm")
    return str(shm) if shm.is_dir() and os.access(shm, os.W_OK | os.X_OK) else None
