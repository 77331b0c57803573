"""When the lief worker starts and stops: the reading stack's own policy for a run.

lief reads in a worker process (a crash there costs one file, not the run). Its
start-up is mostly lief's import, 0.6 s to a second: started at once, that import
overlaps the caller's work (asking the CMakes their versions, reading the manifest,
inflating members). But a Linux wheel's binaries are ELF files the struct reader
reads without lief, and a wheel whose last reading kept every lief read
(`kept.lief_reads_kept`, noted by `Reader.records`) needs none either: then the
worker starts only when a file needs it. A wrong guess costs only a later or a
needless start, never a different answer. The worker stops with the session.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

from shiplint.artifacts.platform import linux_wheel
from shiplint.artifacts.reading.kept import lief_reads_kept
from shiplint.artifacts.reading.stack import Reader


@contextmanager
def opened(artifacts: Iterable[Path], say: Callable[[str], object]) -> Iterator[Reader]:
    """A reader for a run over `artifacts`, its worker stopped at the end; `say` is told
    how it reads (a progress line)."""
    from shiplint.artifacts.reading.worker import WorkerReader

    expect_lief = lief_expected(artifacts)
    say(
        "starting the binary reader (lief, in a worker process)"
        if expect_lief
        else "starting the binary reader (ELF in this process, lief only if a file needs it)"
    )
    with WorkerReader(expect_lief=expect_lief) as worker:
        yield Reader(worker)


def lief_expected(artifacts: Iterable[Path]) -> bool:
    """Whether reading these artifacts will likely need lief: False when every one is a
    wheel tagged for Linux alone (its binaries are ELF, read without lief), or a wheel
    whose last reading kept every file lief read."""
    others = []
    for path in artifacts:
        if path.suffix != ".whl":
            return True
        if not linux_wheel(path):
            others.append(path)
    return bool(others) and not lief_reads_kept(others)
