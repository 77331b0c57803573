"""Time how fast hostile manifests are refused, whole process.

    python benchmarks/bench_manifest.py [--repeat N]

A YAML alias bomb (eight levels of ten aliases: 10^8 nodes if expanded) and a
50 MB file are both refused before they cost anything: the bomb by counting
aliases while composing, the big file by its size before it is read. This
times `python -m shiplint validate-manifest` on each (the tests check the exit
code and the located message; how long it takes is measured here). A plain
interpreter start is timed too, for scale. Prints; asserts nothing.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ALIAS_BOMB = "a: &a [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
    f"{chr(98 + i)}: &{chr(98 + i)} [{', '.join(['*' + chr(97 + i)] * 10)}]\n" for i in range(7)
)


def time_command(command: list[str], repeat: int) -> list[float]:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run(command, capture_output=True, check=False)
        times.append(time.perf_counter() - start)
    return times


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="shiplint-bench-manifest-") as scratch:
        bomb = Path(scratch) / "bomb.yaml"
        bomb.write_text(ALIAS_BOMB, encoding="utf-8")
        huge = Path(scratch) / "huge.yaml"
        with huge.open("wb") as stream:
            stream.write(b"# " + b"x" * (50 * 1024 * 1024) + b"\n")
        cases = {
            "interpreter start (python -c pass)": [sys.executable, "-c", "pass"],
            "alias bomb refused": [
                sys.executable,
                "-m",
                "shiplint",
                "validate-manifest",
                str(bomb),
            ],
            "50 MB file refused": [
                sys.executable,
                "-m",
                "shiplint",
                "validate-manifest",
                str(huge),
            ],
        }
        for label, command in cases.items():
            times = time_command(command, args.repeat)
            print(
                f"{label:<36} median {statistics.median(times):.3f} s, "
                f"min {min(times):.3f} s over {args.repeat}"
            )


if __name__ == "__main__":
    main()
