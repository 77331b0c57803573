"""Time shiplint's artifact check against `auditwheel show` and the naive `nm` approach.

All three run, in one invocation, on the same wheel (default: the cached
ExecuTorch 1.5.1 manylinux x86_64 wheel) and are timed as whole processes:

- shiplint: `shiplint check --no-sources --select SL3 --manifest <m> <wheel>`
  (`python -m shiplint` when no `shiplint` is on PATH), and the same without
  `--select` (every area that reads artifacts, CMake evaluation included);
- auditwheel: `auditwheel show <wheel>`;
- nm: what hand-written release scripts do: unpack the wheel, then one
  `nm -D --defined-only` per (shipped library, sentinel symbol) pair of the
  manifest's ownership table, the output searched for the sentinel.

Usage: python benchmarks/bench_artifacts.py [--runs N] [--wheel W] [--manifest M]
Prints one line per tool (best and median of N rounds; each round runs every tool once,
side by side) and the ratios by median and by best.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import zipfile
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from shiplint.manifest.load import load_manifest  # noqa: E402
from shiplint.platforms import platform_from_wheel_tag  # noqa: E402

CACHE = Path(os.environ.get("SHIPLINT_CACHE", Path.home() / ".cache" / "shiplint"))
DEFAULT_WHEEL = CACHE / "wheels" / "executorch-1.5.1-cp311-cp311-manylinux_2_28_x86_64.whl"
DEFAULT_MANIFEST = REPO / "examples" / "executorch" / "shiplint.yaml"


def _shiplint() -> list[str]:
    found = shutil.which("shiplint")
    return [found] if found else [sys.executable, "-m", "shiplint"]


def _run(command: list[str], ok: tuple[int, ...]) -> None:
    result = subprocess.run(command, cwd=REPO, capture_output=True, check=False)
    if result.returncode not in ok:
        raise SystemExit(
            f"{' '.join(command)} exited {result.returncode}:\n{result.stderr.decode()[-2000:]}"
        )


def _timed_side_by_side(
    actions: dict[str, Callable[[], object]], runs: int
) -> dict[str, list[float]]:
    """Each action once per round, round after round: a change in the machine's load
    touches every tool alike instead of whichever happened to run then."""
    times: dict[str, list[float]] = {name: [] for name in actions}
    for _ in range(runs):
        for name, action in actions.items():
            start = time.perf_counter()
            action()
            times[name].append(time.perf_counter() - start)
    return times


def _nm_pairs(wheel: Path, manifest_path: Path) -> list[tuple[str, str]]:
    """(member, sentinel) for every shipped manifest library and every owned sentinel."""
    manifest = load_manifest(manifest_path)
    platform = platform_from_wheel_tag(wheel.name[: -len(".whl")].split("-")[-1].split(".")[0])
    if platform is None:
        raise SystemExit(f"{wheel.name}: no platform in the wheel tag")
    sentinels = [s for lib in manifest.libraries for s in lib.owns.symbols]
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
    members = []
    for library in manifest.libraries:
        placement = library.placement_for(platform)
        pattern = library.file_pattern(platform)
        if placement is None or pattern is None:
            continue
        for name in sorted(names):
            directory, _, file_name = name.rpartition("/")
            if directory == placement.directory and library.matches_file(platform, file_name):
                members.append(name)
                break
    return [(member, sentinel) for member in members for sentinel in sentinels]


def _nm_approach(wheel: Path, pairs: list[tuple[str, str]]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        with zipfile.ZipFile(wheel) as archive:
            archive.extractall(tmp)
        for member, sentinel in pairs:
            out = subprocess.run(
                ["nm", "-D", "--defined-only", "-C", str(Path(tmp, member))],
                capture_output=True,
                text=True,
                check=True,
            ).stdout
            _ = any(sentinel in line for line in out.splitlines())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--wheel", type=Path, default=DEFAULT_WHEEL)
    parser.add_argument("--manifest", type=Path, default=DEFAULT_MANIFEST)
    args = parser.parse_args()
    if not args.wheel.is_file():
        raise SystemExit(f"{args.wheel}: missing; run .ci/fetch-material")
    if shutil.which("auditwheel") is None or shutil.which("nm") is None:
        raise SystemExit("auditwheel and nm are required")

    check = [*_shiplint(), "check", "--no-sources", "--manifest", str(args.manifest)]
    pairs = _nm_pairs(args.wheel, args.manifest)
    sl3 = "shiplint check --no-sources --select SL3"
    everything = "shiplint check --no-sources (all areas)"
    rows = _timed_side_by_side(
        {
            sl3: lambda: _run([*check, "--select", "SL3", str(args.wheel)], (0, 1)),
            everything: lambda: _run([*check, str(args.wheel)], (0, 1)),
            "auditwheel show": lambda: _run(["auditwheel", "show", str(args.wheel)], (0,)),
            f"nm -D per (library, sentinel): {len(pairs)} runs": lambda: _nm_approach(
                args.wheel, pairs
            ),
        },
        args.runs,
    )
    print(f"wheel: {args.wheel.name} ({args.wheel.stat().st_size / 1e6:.1f} MB), runs: {args.runs}")
    width = max(map(len, rows))
    for name, times in rows.items():
        print(
            f"{name:<{width}}  best {min(times):6.2f} s  median {statistics.median(times):6.2f} s"
        )
    print("ratios (other tool's time / shiplint's), by median and by best:")
    for ours in (sl3, everything):
        for name, times in rows.items():
            if name in (sl3, everything):
                continue
            by_median = statistics.median(times) / statistics.median(rows[ours])
            by_best = min(times) / min(rows[ours])
            print(f"  {name} vs {ours}: {by_median:4.1f}x (median), {by_best:4.1f}x (best)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
