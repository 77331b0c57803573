"""Time inflating every member of a wheel once: through zipfile, and through
`shiplint.artifacts.zip_inflate` with zlib and with zlib-ng (when installed).

What a cold check pays to read a wheel's members, without the rest of the check: each
way reads every member whole (as `ArtifactTree.read` does, the CRC-32 checked) and each
round runs every way once, side by side. Prints the median and best CPU time (this
process's) and wall time of each, and the bytes read (the same for every way).

`--baseline DIR` also times, in a fresh process per run with nothing kept reused, the
part of a cold check that inflates: the wheel's shared libraries read whole through the
tree, then its integrity check (RECORD's hashes of every other member), with this
checkout's shiplint and with DIR's (e.g. a `git worktree add --detach` of an older
commit), alternating.

    python benchmarks/bench_inflate.py [--runs N] [--wheel WHEEL] [--baseline DIR]

Nothing here is asserted: it prints figures.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
import zipfile
import zlib
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "linter"))

from shiplint.artifacts import zip_inflate  # noqa: E402

CACHE = Path(os.environ.get("SHIPLINT_CACHE", Path.home() / ".cache" / "shiplint"))
DEFAULT_WHEEL = CACHE / "wheels" / "executorch-1.5.1-cp311-cp311-manylinux_2_28_x86_64.whl"
_CHUNK = 1024 * 1024


def _through_zipfile(archive: zipfile.ZipFile) -> int:
    total = 0
    for info in archive.infolist():
        with archive.open(info) as stream:
            while chunk := stream.read(_CHUNK):
                total += len(chunk)
    return total


def _through(module: ModuleType) -> Callable[[zipfile.ZipFile], int]:
    def read(archive: zipfile.ZipFile) -> int:
        zip_inflate.inflater.cache_clear()
        original = zip_inflate.inflater
        zip_inflate.inflater = lambda: module  # type: ignore[assignment]
        try:
            total = 0
            stream = archive.fp
            assert stream is not None
            encoding = getattr(archive, "metadata_encoding", None)
            for info in archive.infolist():
                blocks: list[bytes] = []
                if not zip_inflate.read_plain(
                    stream, info, blocks.append, crc=True, encoding=encoding
                ):
                    raise SystemExit(f"{info.filename}: not plain")
                total += len(b"".join(blocks))
            return total
        finally:
            zip_inflate.inflater = original  # type: ignore[method-assign]

    return read


# Run in a child with a checkout's linter/ first on sys.path: prints the CPU seconds of
# the library reads, of the integrity check, and the wall seconds of both.
_COLD_PART = """
import sys, time
from pathlib import Path
from shiplint import cache
from shiplint.artifacts.archive import open_artifact
with cache.refusing_reuse():
    cpu, wall = time.process_time(), time.perf_counter()
    with open_artifact(Path(sys.argv[1])) as tree:
        for name in tree.names():
            if ".so" in name.rsplit("/", 1)[-1]:
                tree.read(name)
        reads = time.process_time()
        tree.integrity()
    done = time.process_time()
print(reads - cpu, done - reads, time.perf_counter() - wall)
"""


def _cold_parts(wheel: Path, baseline: Path, runs: int) -> None:
    checkouts = {"this checkout": REPO, baseline.name: baseline}
    found: dict[str, list[list[float]]] = {name: [] for name in checkouts}
    for _ in range(runs):
        for name, checkout in checkouts.items():
            env = {**os.environ, "PYTHONPATH": str(checkout / "linter")}
            result = subprocess.run([sys.executable, "-c", _COLD_PART, str(wheel)], env=env,
                                    capture_output=True, text=True, check=True)  # fmt: skip
            found[name].append([float(x) for x in result.stdout.split()])
    print("libraries read whole, then the integrity check (nothing kept reused):")
    for name, samples in found.items():
        reads, check, wall = (statistics.median(s[i] for s in samples) for i in range(3))
        print(f"  {name:20} CPU median {reads:.3f} s reading + {check:.3f} s checking "
              f"= {reads + check:.3f} s, wall median {wall:.3f} s")  # fmt: skip


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--wheel", type=Path, default=DEFAULT_WHEEL)
    parser.add_argument("--baseline", type=Path, help="another checkout, timed alongside")
    args = parser.parse_args()
    ways: dict[str, Callable[[zipfile.ZipFile], int]] = {
        "zipfile": _through_zipfile,
        "zip_inflate, zlib": _through(zlib),
    }
    try:
        from zlib_ng import zlib_ng
    except ImportError:
        print("zlib-ng is not installed: timed without it")
    else:
        ways["zip_inflate, zlib-ng"] = _through(zlib_ng)
    cpu: dict[str, list[float]] = {name: [] for name in ways}
    wall: dict[str, list[float]] = {name: [] for name in ways}
    sizes: dict[str, int] = {}
    with zipfile.ZipFile(args.wheel) as archive:
        print(f"{args.wheel.name}: {len(archive.infolist())} members")
        for _ in range(args.runs):
            for name, way in ways.items():
                started, started_cpu = time.perf_counter(), time.process_time()
                sizes[name] = way(archive)
                cpu[name].append(time.process_time() - started_cpu)
                wall[name].append(time.perf_counter() - started)
    for name in ways:
        print(
            f"{name:22} CPU median {statistics.median(cpu[name]):.3f} s "
            f"(best {min(cpu[name]):.3f}), wall median {statistics.median(wall[name]):.3f} s "
            f"(best {min(wall[name]):.3f}), {sizes[name]:,} bytes"
        )
    if args.baseline is not None:
        _cold_parts(args.wheel, args.baseline, args.runs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
