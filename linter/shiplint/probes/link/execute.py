"""Run the consumers the probe built: where they were built, then deployed elsewhere.

Only on the artifact's own platform (the probe never builds for another). A run gets
the probe's reduced environment, so no LD_LIBRARY_PATH, LD_PRELOAD or DYLD_* of the
caller finds the package's libraries in the consumer's place: the binary's own
RUNPATH has to. The deployed run copies the consumer beside copies of the package's
libraries and moves the package away first, so the absolute entry the build
recorded leads nowhere and only an entry relative to the binary can resolve them.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
from collections.abc import Iterable
from pathlib import Path

from shiplint.fastclass import dataclass
from shiplint.probes.link.model import ConsumerRun, RunSite
from shiplint.probes.runner import stop_group, tail

# Lines of a failed run's stderr kept for the message: the loader says it in one.
RUN_TAIL_LINES = 6


@dataclass(frozen=True)
class RunOutput:
    run: ConsumerRun
    stdout: str


def run_consumer(binary: Path, site: RunSite, env: dict[str, str], timeout: float) -> RunOutput:
    """Start `binary` with no arguments and wait at most `timeout` seconds."""
    try:
        process = subprocess.Popen(
            [str(binary)],
            cwd=binary.parent,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
        )
    except OSError as exc:
        reason = f"could not start: {exc.strerror or exc}"
        return RunOutput(ConsumerRun(site, None, reason), "")
    try:
        out, err = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        stop_group(process)
        out, err = process.communicate()
        reason = f"stopped after the {timeout:g} s time limit"
        return RunOutput(ConsumerRun(site, None, reason, _tail(err)), _text(out))
    code = process.returncode
    if code == 0:
        return RunOutput(ConsumerRun(site, 0, None), _text(out))
    return RunOutput(ConsumerRun(site, code, _status(code), _tail(err)), _text(out))


def _status(code: int) -> str:
    if code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        return f"killed by {name}"
    return f"exited with status {code}"


def _text(data: bytes | None) -> str:
    return data.decode("utf-8", "replace") if data else ""


def _tail(data: bytes | None) -> str:
    return tail(_text(data), RUN_TAIL_LINES)


class Deployment:
    """A directory holding copies of every file beside the package's libraries, with the
    package itself moved away while it exists (restored by `close`)."""

    def __init__(self, package: Path, library_dirs: Iterable[Path], dest: Path) -> None:
        self.package = package
        self.hidden = package.with_name(package.name + "-moved-away")
        self.dest = dest
        dest.mkdir(parents=True)
        for directory in library_dirs:
            for entry in sorted(directory.iterdir()):
                target = dest / entry.name
                if entry.is_file() and not target.exists():
                    _place(entry, target)
        package.rename(self.hidden)

    def run(self, binary: Path, name: str, env: dict[str, str], timeout: float) -> ConsumerRun:
        copy = self.dest / name
        shutil.copy2(binary, copy)
        try:
            return run_consumer(copy, RunSite.DEPLOYED, env, timeout).run
        finally:
            copy.unlink()

    def close(self) -> None:
        self.hidden.rename(self.package)


def _place(source: Path, target: Path) -> None:
    """A hard link where the file system allows one (both sit in the probe's temp dir,
    and a wheel's libraries run to hundreds of MB), else a copy."""
    try:
        os.link(source, target)
    except OSError:
        shutil.copy2(source, target)
