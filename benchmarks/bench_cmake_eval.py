"""Time the CMake evaluation: one configure run per route, on the real 1.5.1 wheels.

    python benchmarks/bench_cmake_eval.py [--repeat N]

For each wheel and each CMake (3.24.3: the pre-3.28 route, 4.4.5: the 3.28+ route)
it reports the wall time of the single configure run that answers everything
(the plain find_package, every variable and target, and one component request per
manifest component plus an absent one), and the whole evaluation including laying
out the placeholder tree. Needs the material of .ci/fetch-material.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from shiplint.artifacts.archive import open_artifact  # noqa: E402
from shiplint.artifacts.inventory import list_artifact  # noqa: E402
from shiplint.cmake_eval import evaluate_artifact  # noqa: E402
from shiplint.cmake_eval.model import ConfigEvaluation  # noqa: E402
from shiplint.manifest.load import load_manifest  # noqa: E402

from tests.material import (  # noqa: E402
    EXAMPLE_MANIFEST,
    NEW_CMAKE_VERSION,
    OLD_CMAKE_VERSION,
    cmake,
    wheel,
)

WHEELS = ("manylinux_2_28_x86_64", "manylinux_2_28_aarch64", "macosx_14_0_arm64", "win_amd64")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    manifest = load_manifest(EXAMPLE_MANIFEST)
    print(f"{'wheel':<24} {'cmake':<7} {'route':<8} {'configure s (median)':>21} {'total s':>8}")
    for tag in WHEELS:
        for version in (OLD_CMAKE_VERSION, NEW_CMAKE_VERSION):
            configure: list[float] = []
            total: list[float] = []
            route = "?"
            for _ in range(args.repeat):
                with open_artifact(wheel("1.5.1", tag)) as tree:
                    start = time.monotonic()
                    listing = list_artifact(tree, manifest)
                    models = evaluate_artifact(tree, listing, manifest, [str(cmake(version))], 120)
                    total.append(time.monotonic() - start)
                # One CMake, so exactly one evaluation: one configure run.
                (evaluation,) = [m for m in models if isinstance(m, ConfigEvaluation)]
                configure.append(evaluation.seconds)
                route = evaluation.route or "?"
            print(
                f"{tag:<24} {version:<7} {route:<8} "
                f"{statistics.median(configure):>21.3f} {statistics.median(total):>8.3f}"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
