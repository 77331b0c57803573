"""What one `shiplint check` run was asked to do, after CLI and config are merged."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TextIO

from shiplint.fastclass import dataclass
from shiplint.selection import ALL, Selection

# Default limits, in seconds, of one CMake run: an untrusted config that loops or sleeps
# is stopped within the evaluation limit even when nothing is configured.
EVALUATION_TIMEOUT = 20.0
BUILD_TIMEOUT = 60.0


@dataclass(frozen=True)
class RunRequest:
    root: Path
    check_sources: bool
    artifacts: tuple[Path, ...]
    # CMake binaries to evaluate configs with (absolute paths, checked usable by the CLI;
    # names on PATH from other callers); one per route at least.
    cmake: tuple[str, ...]
    link_probe: bool = False
    header_probe: bool = False
    # Seconds one CMake run may take before it is stopped and reported; None: the defaults.
    cmake_timeout: float | None = None
    # The rules that will run: an area none of whose rules run is not built at all
    # (`shiplint.areas.plan`).
    selection: Selection = ALL

    @property
    def evaluation_timeout(self) -> float:
        """A config evaluation is one configure of a small probe: seconds on any machine."""
        return self.cmake_timeout if self.cmake_timeout is not None else EVALUATION_TIMEOUT

    @property
    def build_timeout(self) -> float:
        """The link probe also compiles and links consumers."""
        return self.cmake_timeout if self.cmake_timeout is not None else BUILD_TIMEOUT

    def shown(self, artifact: Path) -> str:
        """How reports name an artifact's file: relative to the root when it lies under
        it (a file of the repository, as code scanning needs), absolute otherwise."""
        given, root = Path(os.path.abspath(artifact)), Path(os.path.abspath(self.root))
        for path, base in ((given, root), (given.resolve(), root.resolve())):
            if path.is_relative_to(base):
                return path.relative_to(base).as_posix()
        return str(given)


class Progress:
    """Says what a long run is doing, on stderr when it is a terminal; quiet otherwise."""

    def __init__(self, stream: TextIO | None = None, enabled: bool | None = None) -> None:
        self._stream = stream if stream is not None else sys.stderr
        self._enabled = self._stream.isatty() if enabled is None else enabled

    def step(self, message: str) -> None:
        if self._enabled:
            print(f"shiplint: {message}", file=self._stream, flush=True)


QUIET = Progress(enabled=False)
