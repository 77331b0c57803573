"""Time `shiplint diff` of two 1.5.1-sized wheels against one `shiplint check` of one.

A diff reads two builds the way a check reads one (the inventory, the installed config
per CMake route, the operator tables) and runs no rule, so it should cost about two
checks. Both are timed as whole processes, alternating round by round (a change in the
machine's load touches both alike), on the cached ExecuTorch 1.5.1 manylinux x86_64
wheel and a copy of it without its quantized kernels library:

- diff:  `shiplint diff --manifest M --cmake A --cmake B <wheel> <copy>`
- check: `shiplint check --no-sources --manifest M --cmake A --cmake B <wheel>`

Usage: python benchmarks/bench_diff.py [--runs N]
Prints each command's median and best of N rounds and the ratio diff/check.
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
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
CACHE = Path(os.environ.get("SHIPLINT_CACHE", Path.home() / ".cache" / "shiplint"))
WHEEL = CACHE / "wheels" / "executorch-1.5.1-cp311-cp311-manylinux_2_28_x86_64.whl"
MANIFEST = REPO / "examples" / "executorch" / "shiplint.yaml"
CMAKES = [CACHE / f"cmake-{v}" / "cmake" / "data" / "bin" / "cmake" for v in ("3.24.3", "4.4.5")]
DROPPED = "executorch/lib/libexecutorch_kernels_quantized.so"


def _shiplint() -> list[str]:
    found = shutil.which("shiplint")
    return [found] if found else [sys.executable, "-m", "shiplint"]


def _copy_without(source: Path, folder: Path, member: str) -> Path:
    target = folder / source.name
    with zipfile.ZipFile(source) as original, zipfile.ZipFile(target, "w") as copy:
        for info in original.infolist():
            if info.filename != member:
                copy.writestr(info, original.read(info))
    return target


def _timed(command: list[str]) -> float:
    start = time.perf_counter()
    result = subprocess.run(command, cwd=REPO, capture_output=True, check=False)
    elapsed = time.perf_counter() - start
    if result.returncode not in (0, 1):
        raise SystemExit(
            f"{' '.join(command)} exited {result.returncode}:\n{result.stderr.decode()[-2000:]}"
        )
    return elapsed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    if args.runs < 5:
        raise SystemExit("--runs: at least 5 (a median of fewer says little on a shared machine)")
    missing = [p for p in (WHEEL, *CMAKES) if not p.exists()]
    if missing:
        raise SystemExit(f"missing: {', '.join(map(str, missing))}; run .ci/fetch-material")
    context = ["--manifest", str(MANIFEST), *(f"--cmake={c}" for c in CMAKES)]
    load = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as tmp:
        copy = _copy_without(WHEEL, Path(tmp), DROPPED)
        commands = {
            "diff (two wheels)": [*_shiplint(), "diff", *context, str(WHEEL), str(copy)],
            "check (one wheel)": [*_shiplint(), "check", "--no-sources", *context, str(WHEEL)],
        }
        times: dict[str, list[float]] = {name: [] for name in commands}
        for _ in range(args.runs):
            for name, command in commands.items():
                times[name].append(_timed(command))
    print(f"wheel: {WHEEL.name} ({WHEEL.stat().st_size / 1e6:.1f} MB) and a copy without")
    print(f"  {DROPPED}; with the manifest and CMake 3.24.3 and 4.4.5")
    print(
        f"runs: {args.runs}, alternating; load average {load:.1f} before, {os.getloadavg()[0]:.1f} after"
    )
    for name, measured in times.items():
        print(
            f"{name}: median {statistics.median(measured):6.2f} s  best {min(measured):6.2f} s"
            f"  ({', '.join(f'{t:.2f}' for t in measured)})"
        )
    diff, check = times["diff (two wheels)"], times["check (one wheel)"]
    print(
        f"ratio diff/check: {statistics.median(diff) / statistics.median(check):.2f} (median), "
        f"{min(diff) / min(check):.2f} (best); about two checks is 2.0"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
