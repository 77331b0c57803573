"""Time a whole shiplint artifact run against `auditwheel show` on the same wheel, and a
release of five wheels in one run against five single runs.

Every command is a whole process (interpreter start, lief's import in the worker,
both CMake routes included), timed side by side: each round runs every command
once, so a change in the machine's load touches them alike. For each it reports
the median and best wall time, the median CPU time (user + system, the process
and every child it waited for: the lief worker, CMake and what the config runs)
and the peak resident set of the largest process.

    python benchmarks/bench_wheel.py [--runs N] [--release-runs N] [--no-release]
                                     [--baseline DIR] [--wheel WHEEL --manifest MANIFEST]

`--wheel` and `--manifest` time another wheel (a small SDK's, another project's) the
same way, without the five-wheel part.

Each artifact run is timed with the user cache a user's second run finds, with
`--no-cache` (nothing kept is reused, but the run keeps what it makes), with an
empty user cache made for each run (a first run on a machine: cold), and, for the
1.5.1 Linux wheel, with a copy of the user cache a run over the 1.4.1 Linux wheel
left (a project's next release on a fresh runner whose user cache the Action
restored: the CMakes, the compilers and the manifest seen before, the wheel new).

`--baseline DIR` times another checkout's shiplint (DIR holds its `linter/`, e.g. a
`git worktree add --detach` of an older commit) in the same rounds, warm and cold:
before and after.
The shiplint timed otherwise is this checkout's (its `linter/` first on PYTHONPATH).

Needs the material of .ci/fetch-material (the ExecuTorch wheels, CMake 3.24.3 and
4.4.5) and `auditwheel` on PATH. Nothing here is asserted: it prints figures.
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
CACHE = Path(os.environ.get("SHIPLINT_CACHE", Path.home() / ".cache" / "shiplint"))
WHEELS = CACHE / "wheels"
MANIFEST = REPO / "examples" / "executorch" / "shiplint.yaml"
# Where the timed checkouts' bytecode is cached (PYTHONPYCACHEPREFIX mirrors each
# module's absolute path, so checkouts do not share it).
PYCACHE = Path(tempfile.gettempdir()) / "shiplint-bench-pycache"
LINUX = "executorch-1.5.1-cp311-cp311-manylinux_2_28_x86_64.whl"
RELEASE = (
    LINUX,
    "executorch-1.5.1-cp311-cp311-manylinux_2_28_aarch64.whl",
    "executorch-1.5.1-cp311-cp311-macosx_14_0_arm64.whl",
    "executorch-1.5.1-cp311-cp311-win_amd64.whl",
    "executorch-1.4.1-cp311-cp311-manylinux_2_28_x86_64.whl",
)


@dataclass(frozen=True)
class Sample:
    wall: float
    cpu: float
    peak_mb: float


Command = tuple[list[str], dict[str, str]]
# In a command's environment: run it with a user cache of its own, empty, made for
# that one run (what a first run on a machine, or in a fresh CI job, costs).
COLD = "SHIPLINT_BENCH_COLD"
# In a command's environment: the directory of a user cache; the command runs with a
# copy of it made for that one run.
SEEDED = "SHIPLINT_BENCH_SEEDED"
# The release before the timed one: what the seeded user cache was made by.
PREVIOUS = "executorch-1.4.1-cp311-cp311-manylinux_2_28_x86_64.whl"


def _measure(command: list[str], env: dict[str, str], ok: tuple[int, ...]) -> Sample:
    """One whole process: wall time, and from wait4 its CPU time (with every child it
    waited for) and the largest resident set among them."""
    if COLD not in env and SEEDED not in env:
        return _measure_in(command, env, ok)
    with tempfile.TemporaryDirectory(prefix="shiplint-bench-cold-") as cold:
        fresh = {k: v for k, v in env.items() if k not in (COLD, SEEDED)}
        if SEEDED in env:
            shutil.copytree(env[SEEDED], cold, dirs_exist_ok=True, symlinks=True)
        return _measure_in(command, fresh | {"XDG_CACHE_HOME": cold}, ok)


def _measure_in(command: list[str], env: dict[str, str], ok: tuple[int, ...]) -> Sample:
    start = time.perf_counter()
    process = subprocess.Popen(
        command, cwd=REPO, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )  # fmt: skip
    assert process.stderr is not None
    error = process.stderr.read()
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - start
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode not in ok:
        raise SystemExit(f"{' '.join(command)} exited {process.returncode}:\n{error[-2000:]!r}")
    # ru_maxrss is in KiB on Linux.
    return Sample(wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024)


def _shiplint(
    wheels: list[Path], checkout: Path = REPO, *options: str, manifest: Path = MANIFEST
) -> Command:
    cmakes = [
        CACHE / f"cmake-{v}" / "cmake" / "data" / "bin" / "cmake" for v in ("3.24.3", "4.4.5")
    ]
    # Each checkout with its own example manifest: the manifest's schema changes with it.
    if manifest.is_relative_to(REPO):
        manifest = checkout / manifest.relative_to(REPO)
    command = [sys.executable, "-m", "shiplint", "check", "--no-sources", *options]
    command += ["--manifest", str(manifest)]
    for cmake in cmakes:
        command += ["--cmake", str(cmake)]
    # An installed shiplint has its bytecode cached; this machine may forbid writing it
    # (PYTHONDONTWRITEBYTECODE), and then every run would compile each module it imports
    # (half a second here): cache it outside the checkout, warmed by an untimed run.
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = str(checkout / "linter")
    env["PYTHONPYCACHEPREFIX"] = str(PYCACHE)
    # Each checkout has a user cache of its own: a baseline's entries of another format
    # would replace this checkout's each round (each would time a cold cache), and a
    # user's cache grown over months is not what either is timed against.
    env["XDG_CACHE_HOME"] = str(PYCACHE.with_name(f"shiplint-bench-cache-{checkout.name}"))
    return [*command, *map(str, wheels)], env


def _cold(command: Command) -> Command:
    return command[0], command[1] | {COLD: "1"}


def _seeded(command: Command, previous: Path, seed: Path) -> Command:
    """`command` with a copy of the user cache a run of the same command over the
    `previous` wheel left in `seed` (made here, once)."""
    argv, env = command
    before = [str(previous) if a == argv[-1] else a for a in argv]
    _measure_in(before, env | {"XDG_CACHE_HOME": str(seed)}, (0, 1))
    return argv, env | {SEEDED: str(seed)}


def _rounds(commands: dict[str, list[Command]], runs: int) -> dict[str, list[Sample]]:
    """Per name, one Sample per round; a name with several commands sums them (the five
    single runs of a release). Each command runs once untimed first: its bytecode and the
    user cache are then as warm as a user's second run finds them."""
    for name, group in commands.items():
        for command, env in group:
            _measure(command, env, (0,) if name.startswith("auditwheel") else (0, 1))
    out: dict[str, list[Sample]] = {name: [] for name in commands}
    for _ in range(runs):
        for name, group in commands.items():
            ok = (0,) if name.startswith("auditwheel") else (0, 1)
            samples = [_measure(command, env, ok) for command, env in group]
            out[name].append(
                Sample(
                    sum(s.wall for s in samples),
                    sum(s.cpu for s in samples),
                    max(s.peak_mb for s in samples),
                )
            )
    return out


def _report(rows: dict[str, list[Sample]]) -> None:
    width = max(map(len, rows))
    for name, samples in rows.items():
        walls = [s.wall for s in samples]
        print(
            f"  {name:<{width}}  median {statistics.median(walls):6.2f} s  "
            f"best {min(walls):6.2f} s  CPU {statistics.median(s.cpu for s in samples):5.2f} s  "
            f"peak RSS {max(s.peak_mb for s in samples):5.0f} MB"
        )


def _median(samples: list[Sample]) -> float:
    return statistics.median(s.wall for s in samples)


def _cpu(samples: list[Sample]) -> float:
    return statistics.median(s.cpu for s in samples)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--release-runs", type=int, default=5)
    parser.add_argument("--no-release", action="store_true", help="skip the five-wheel part")
    parser.add_argument("--baseline", type=Path, help="another checkout, timed alongside")
    parser.add_argument(
        "--wheel", type=Path, help="time this wheel instead (with --manifest; implies --no-release)"
    )
    parser.add_argument(
        "--manifest", type=Path, help="its manifest (one under this checkout: each checkout's own)"
    )
    args = parser.parse_args()
    if (args.wheel is None) != (args.manifest is None):
        raise SystemExit("--wheel and --manifest go together")
    missing = [name for name in RELEASE if not (WHEELS / name).is_file()]
    if missing:
        raise SystemExit(f"missing material {missing}; run .ci/fetch-material")
    if shutil.which("auditwheel") is None:
        raise SystemExit("auditwheel is required (pip install auditwheel)")
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(
        f"machine: {platform.machine()}, {os.cpu_count()} cores, {platform.system()} "
        f"{platform.release()}, Python {platform.python_version()}, load {load:.1f} at start"
    )
    linux = WHEELS / LINUX if args.wheel is None else args.wheel.resolve()
    manifest = MANIFEST if args.manifest is None else args.manifest.resolve()
    ours = "shiplint check (all areas, 2 CMakes)"
    # Nothing kept in the user cache is reused (every config evaluated, the compilers
    # detected, the launch tried): what a first run on a machine costs.
    uncached = "shiplint check --no-cache"
    theirs = "auditwheel show"
    # An empty user cache, a new one each run: nothing kept by an earlier run at all.
    cold = "shiplint check, empty user cache"
    # A copy of the user cache a run over the previous release left: the tools warm.
    next_release = "shiplint check, the previous release's user cache"
    commands = {
        ours: [_shiplint([linux], manifest=manifest)],
        uncached: [_shiplint([linux], REPO, "--no-cache", manifest=manifest)],
        cold: [_cold(_shiplint([linux], manifest=manifest))],
    }
    seeds = tempfile.TemporaryDirectory(prefix="shiplint-bench-seed-")
    previous = WHEELS / PREVIOUS
    if args.wheel is None and previous.is_file():
        commands[next_release] = [
            _seeded(_shiplint([linux], manifest=manifest), previous, Path(seeds.name) / "ours")
        ]
    if args.baseline is not None:
        baseline = args.baseline.resolve()
        commands[f"baseline {baseline.name}"] = [_shiplint([linux], baseline, manifest=manifest)]
        commands[f"baseline {baseline.name}, empty user cache"] = [
            _cold(_shiplint([linux], baseline, manifest=manifest))
        ]
        if next_release in commands:
            commands[f"baseline {baseline.name}, the previous release's user cache"] = [
                _seeded(
                    _shiplint([linux], baseline, manifest=manifest),
                    previous,
                    Path(seeds.name) / "baseline",
                )
            ]
    commands[theirs] = [(["auditwheel", "show", str(linux)], dict(os.environ))]
    rows = _rounds(commands, args.runs)
    print(f"{linux.name}, {args.runs} rounds:")
    _report(rows)
    seeds.cleanup()
    mine = [n for n in (ours, uncached, cold, next_release) if n in rows]
    for name in rows:
        for against in mine:
            if name in mine:
                continue
            print(
                f"  {name} / {against}: "
                f"{_median(rows[name]) / _median(rows[against]):.1f}x (median), "
                f"{min(s.wall for s in rows[name]) / min(s.wall for s in rows[against]):.1f}x (best), "
                f"{_cpu(rows[name]) / _cpu(rows[against]):.1f}x (CPU)"
            )
    if not args.no_release and args.wheel is None:
        wheels = [WHEELS / name for name in RELEASE]
        together = "one run, five wheels"
        singles = "five single runs (summed)"
        release = _rounds(
            {together: [_shiplint(wheels)], singles: [_shiplint([w]) for w in wheels]},
            args.release_runs,
        )
        print(f"release of five wheels ({', '.join(RELEASE)}), {args.release_runs} rounds:")
        _report(release)
        print(
            f"  one run / five single runs: {_median(release[together]) / _median(release[singles]):.2f} "
            "of the time (median)"
        )
    print(f"load {os.getloadavg()[0]:.1f} at the end" if hasattr(os, "getloadavg") else "")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
