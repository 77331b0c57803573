"""Time a sources-only run, whole process, as pre-commit would start it.

    python benchmarks/bench_sources.py [--repeat N] [--root CHECKOUT --manifest MANIFEST]

Without --root it generates a project of 100 CMake files (a top-level
CMakeLists.txt, a helper module with a wrapper function, 98 component
directories with options, if() blocks, wrapper calls, OUTPUT_NAME, installs and
links, commented like real projects) in a temporary directory, and times
`python -m shiplint check --root <it> --manifest <its manifest>` end to end. With
--root it times the same command on a real checkout (e.g. ExecuTorch with
examples/executorch/shiplint.yaml). It also reports the in-process time of the
source walk alone and whether lief was imported. Prints; asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

COMPONENTS = 98

_COMMENT = "# " + "Explains why this block exists, as real projects' files do. " * 2 + "\n"


def generate(root: Path) -> Path:
    (root / "cmake").mkdir(parents=True)
    (root / "cmake" / "Helpers.cmake").write_text(
        _COMMENT * 5 + "function(bench_add_shared_library name)\n"
        '  cmake_parse_arguments(ARG "" "OUTPUT" "DEPS" ${ARGN})\n'
        "  add_library(${name} SHARED ${ARG_UNPARSED_ARGUMENTS})\n"
        "  if(ARG_DEPS)\n    target_link_libraries(${name} PRIVATE ${ARG_DEPS})\n  endif()\n"
        "  if(ARG_OUTPUT)\n"
        "    set_target_properties(${name} PROPERTIES OUTPUT_NAME ${ARG_OUTPUT})\n  endif()\n"
        "  install(TARGETS ${name} EXPORT BenchTargets LIBRARY DESTINATION lib)\n"
        "endfunction()\n",
        encoding="utf-8",
    )
    top = ["cmake_minimum_required(VERSION 3.19)\nproject(bench CXX)\n", _COMMENT * 3]
    top.append("list(APPEND CMAKE_MODULE_PATH ${CMAKE_CURRENT_SOURCE_DIR}/cmake)\n")
    top.append("include(Helpers)\nadd_library(bench_core SHARED core.cpp)\n")
    manifest_libs = []
    requests = []
    for i in range(COMPONENTS):
        name = f"comp{i:02d}"
        top.append(f'option(BENCH_BUILD_{i:02d} "component {i}" ON)\n')
        top.append(f"if(BENCH_BUILD_{i:02d})\n  add_subdirectory(components/{name})\nendif()\n")
        directory = root / "components" / name
        directory.mkdir(parents=True)
        directory.joinpath("CMakeLists.txt").write_text(
            _COMMENT * 4
            + f"set(_{name}_srcs a.cpp b.cpp c.cpp)\n"
            + f"add_library({name}_impl STATIC ${{_{name}_srcs}})\n"
            + "target_compile_options("
            + f"{name}_impl PRIVATE -Wall -Wextra)\n"
            + _COMMENT * 2
            + f"bench_add_shared_library({name}_ops x.cpp DEPS {name}_impl bench_core)\n"
            + "if(BENCH_WHEEL)\n"
            + f"  set_target_properties({name}_ops PROPERTIES OUTPUT_NAME bench_{name})\n"
            + "else()\n"
            + f'  message(STATUS "{name}: source build naming")\n'
            + "endif()\n"
            + _COMMENT * 2
            + f"target_include_directories({name}_ops PUBLIC ${{CMAKE_CURRENT_SOURCE_DIR}})\n",
            encoding="utf-8",
        )
        manifest_libs.append(
            f"  - name: bench_{name}\n    kind: component\n"
            f"    build: {{target: {name}_ops}}\n    registers_statically: true\n"
            "    platforms:\n      linux: {dir: bench/lib}\n"
            f"    owns:\n      components: [{name}]\n"
        )
        requests.append(f'    args += ["--target", "{name}_ops"]\n')
    (root / "CMakeLists.txt").write_text("".join(top), encoding="utf-8")
    (root / "setup.py").write_text(
        "def build_args():\n    args = []\n" + "".join(requests) + "    return args\n",
        encoding="utf-8",
    )
    manifest = root / "shiplint.yaml"
    manifest.write_text(
        "version: 1\npackage:\n  name: bench\n"
        "cmake:\n  package: bench\n  namespace: 'bench::'\n  package_root: bench\n"
        "  installed_config_dirs: [bench/lib/cmake/bench]\n"
        "  routes:\n    - name: targets\n      since: '3.28'\n"
        "libraries:\n"
        + "".join(manifest_libs)
        + "components:\n"
        + "".join(f"  - name: comp{i:02d}\n" for i in range(COMPONENTS))
        + "sources:\n  build_declarations:\n    - kind: setup-py\n      path: setup.py\n",
        encoding="utf-8",
    )
    return manifest


def time_process(root: Path, manifest: Path, repeat: int, pycache: Path) -> list[float]:
    # An installed shiplint has its bytecode cached; this machine may forbid writing it
    # (PYTHONDONTWRITEBYTECODE), so cache it in the scratch directory and warm it once.
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = str(pycache)
    command = [sys.executable, "-m", "shiplint", "check", "--root", str(root),
               "--manifest", str(manifest), "--format", "json", "--output", os.devnull]  # fmt: skip
    subprocess.run(command, cwd=REPO, env=env, check=False, capture_output=True)
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run(command, cwd=REPO, env=env, check=False, capture_output=True)
        times.append(time.perf_counter() - start)
    return times


def time_walk(root: Path, manifest: Path, repeat: int) -> tuple[list[float], int, bool]:
    from shiplint.manifest.load import load_manifest
    from shiplint.sources.collect import read_sources

    loaded = load_manifest(manifest)
    times = []
    files = 0
    for _ in range(repeat):
        start = time.perf_counter()
        model = read_sources(root, loaded)
        times.append(time.perf_counter() - start)
        files = len(model.project.files)
    return times, files, "lief" in sys.modules


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--root", type=Path)
    parser.add_argument("--manifest", type=Path)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="shiplint-bench-sources-") as scratch:
        if args.root is None:
            root = Path(scratch) / "project"
            manifest = generate(root)
        else:
            root, manifest = args.root, args.manifest
        process = time_process(root, manifest, args.repeat, Path(scratch) / "pycache")
        walk, files, lief = time_walk(root, manifest, args.repeat)
    print(f"root: {root if args.root else 'generated project'} ({files} CMake files read)")
    print(
        f"whole process (python -m shiplint check, sources only): "
        f"median {statistics.median(process):.3f} s, min {min(process):.3f} s over {args.repeat}"
    )
    print(
        f"source walk + declarations in process: median {statistics.median(walk):.3f} s, "
        f"min {min(walk):.3f} s"
    )
    print(f"lief imported: {lief}")


if __name__ == "__main__":
    main()
