"""What the config evaluations ask of this machine first, started while the run reads its
inputs.

Before a config is evaluated, its runs ask how CMake runs are confined here (a trial
launch: run.py) and, for a package evaluated without languages first (compiler_need.py),
each CMake's detection of the artifact's system alone (compilers.py). Neither depends on
the manifest or on what the artifact holds: only on the CMakes, and on the system a
wheel's platform tag names. Each is kept in the user cache, so only a first run on a
machine (a fresh CI runner) makes them, and there they sat on the evaluation's path,
after the manifest's validation and the artifact's reading.

Started in a thread of their own as soon as the CMakes are known, their processes run
beside that reading (Python work on one core, CMake on the other), and the evaluations
find them kept. Nothing is decided here: the evaluations ask the same questions through
the same functions. A detection still being made when an evaluation asks for it is
waited for, not made twice (run.py); one that failed here is made again by the
evaluation, which reports it as it always has.
"""

from __future__ import annotations

import contextlib
import tempfile
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path

from shiplint.cmake_eval import compilers
from shiplint.cmake_eval.cmake_binary import CMakeUnusable, identify
from shiplint.cmake_eval.run import confinement, detect, platform_arguments
from shiplint.platforms import Platform, wheel_platform
from shiplint.scratch import scratch_dir


@contextlib.contextmanager
def warming(cmakes: Sequence[str], systems: Sequence[Platform], timeout: float) -> Iterator[None]:
    """While inside, the confinement trial and each CMake's detection of each of `systems`
    alone are made (or found kept) in the background; on leaving, they have ended (an
    interrupt stops their processes with every other run's)."""
    if not cmakes:
        yield
        return
    thread = threading.Thread(
        target=_warm, args=(tuple(cmakes), tuple(systems), timeout), name="shiplint-warm-up"
    )
    thread.start()
    try:
        yield
    finally:
        thread.join()


def wheel_systems(artifacts: Sequence[Path]) -> tuple[Platform, ...]:
    """The systems the platform tags of `artifacts` (wheels) name, each once: an artifact
    without one is evaluated as its inventory or the manifest says, found later."""
    found: dict[str, Platform] = {}
    for path in artifacts:
        platform = wheel_platform(path.name) if path.name.endswith(".whl") else None
        if platform is not None:
            found.setdefault(platform.os, Platform(platform.os))
    return tuple(found.values())


def _warm(cmakes: tuple[str, ...], systems: tuple[Platform, ...], timeout: float) -> None:
    # Whatever fails here fails again where the evaluation asks, and is reported there.
    with contextlib.suppress(Exception):
        confinement()
        if not systems:
            return
        binaries = []
        for path in cmakes:
            with contextlib.suppress(CMakeUnusable):
                binaries.append(identify(path))
        # Kept (a run on a machine that made it before): the evaluation loads it and
        # checks its toolchain; loading it here too would only cost a warm run that
        # check twice, and a warm run makes no directory for nothing.
        missing = [
            (index, cmake, system)
            for index, cmake in enumerate(binaries)
            for system in systems
            if not compilers.held(compilers.inputs(cmake, platform_arguments(system, ()), ()))
        ]
        if not missing:
            return
        from concurrent.futures import ThreadPoolExecutor  # only a first run gets here

        with (
            tempfile.TemporaryDirectory(prefix="shiplint-warm-", dir=scratch_dir()) as tmp,
            ThreadPoolExecutor(max_workers=len(missing)) as pool,
        ):
            for index, cmake, system in missing:
                work = Path(tmp) / f"{index}-{system.os}"
                pool.submit(detect, cmake, system, (), work, timeout)
