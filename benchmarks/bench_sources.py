"""Time the source hook (`shiplint check` on a checkout) as pre-commit starts it, whole process.

    python benchmarks/bench_sources.py [--repeat N] [--root CHECKOUT --manifest MANIFEST]
                                       [--cmake PATH --cmake PATH] [--entry SCRIPT]

Without --root it generates a project of 100 CMake files (a top-level
CMakeLists.txt, a helper module with a wrapper function, 98 component
directories with options, if() blocks, wrapper calls, OUTPUT_NAME, installs and
links, commented like real projects) in a temporary directory. With --root it
times a real checkout (e.g. ExecuTorch with examples/executorch/shiplint.yaml).

The hook runs as pre-commit starts it: `shiplint check` in the checkout (its working
directory; --root is the default `.`). By default through this interpreter with this
checkout's code (`python -m shiplint`); with --entry SCRIPT through that console
script instead, e.g. the `shiplint` pre-commit installed in its own environment (a
virtualenv without this interpreter's site hooks, the bytecode compiled at install).

Each round runs, side by side, every variant once, so a change in the machine's
load touches all of them alike:

- the hook without config evaluation (`--ignore SL1`), with a cold user cache (a
  fresh XDG_CACHE_HOME: the manifest validated, every CMake file parsed) and a
  warm one (what every later commit pays);
- with --cmake (one per config route): the whole hook, config evaluation on
  every route included, cold and warm (the warm cache also keeps the CMake
  probe's compiler detection);
- the peers a user runs anyway: pre-commit's own cost for a hook (`pre-commit
  run` of a hook whose entry is `true`, in a one-file repository) and CMake's
  start-up (`cmake -P` of an empty script, the floor of anything that asks CMake).

Prints the median and range of wall and CPU time (user + system of the child)
over N rounds, the ratios of the hook against the peers, the machine's cores and
load, the in-process time of the sources model (walked, and from a warm user cache:
the stored model after the tree answered as before), and whether lief was imported.
Asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "linter"))

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


Sample = tuple[float, float]  # wall seconds, CPU seconds (user + system) of the child


def _timed(command: list[str], env: dict[str, str], cwd: Path) -> Sample:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(command, cwd=cwd, env=env, check=False, capture_output=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(command)} exited {done.returncode}: {done.stderr[-2000:]!r}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


class Variants:
    """The runs timed side by side: each a name and a callable that runs it once."""

    def __init__(self, scratch: Path, cwd: Path, installed: bool) -> None:
        self.scratch = scratch
        self.cwd = cwd  # where the hook runs: the checkout, as pre-commit runs it
        self.runs: dict[str, Callable[[], Sample]] = {}
        self.cold = 0
        if installed:
            # An installed console script: its own environment and bytecode, nothing of
            # this checkout's (PYTHONPATH would put this checkout's code before it).
            drop = {"PYTHONPATH", "PYTHONPYCACHEPREFIX"}
            self.env = {k: v for k, v in os.environ.items() if k not in drop}
            return
        # An installed shiplint has its bytecode cached; this machine may forbid writing it
        # (PYTHONDONTWRITEBYTECODE), so cache it in the scratch directory (warmed once).
        self.env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        self.env["PYTHONPYCACHEPREFIX"] = str(scratch / "pycache")
        # The children run this checkout's shiplint, as the in-process walk below does.
        paths = [str(REPO / "linter"), *filter(None, [os.environ.get("PYTHONPATH")])]
        self.env["PYTHONPATH"] = os.pathsep.join(paths)

    def hook(self, name: str, command: list[str], warm: bool) -> None:
        shared = self.scratch / f"cache-{len(self.runs)}"

        def run() -> Sample:
            if warm:
                home = shared
            else:  # a cache no run has written: what the first commit after an install pays
                self.cold += 1
                home = self.scratch / f"cold-{self.cold}"
            return _timed(command, {**self.env, "XDG_CACHE_HOME": str(home)}, self.cwd)

        if warm:
            run()  # fills the cache (and the bytecode) before the timed rounds
        self.runs[name] = run

    def peer(self, name: str, command: list[str], cwd: Path) -> None:
        self.runs[name] = lambda: _timed(command, self.env, cwd)

    def measure(self, rounds: int) -> dict[str, list[Sample]]:
        samples: dict[str, list[Sample]] = {name: [] for name in self.runs}
        for _ in range(rounds):
            for name, run in self.runs.items():
                samples[name].append(run())
        return samples


def _noop_hook_repository(scratch: Path) -> Path | None:
    """A one-file git repository whose only pre-commit hook runs `true`; None without git."""
    if shutil.which("git") is None:
        return None
    repo = scratch / "precommit-peer"
    repo.mkdir()
    (repo / "CMakeLists.txt").write_text("project(p)\n", encoding="utf-8")
    (repo / ".pre-commit-config.yaml").write_text(
        "repos:\n  - repo: local\n    hooks:\n      - id: noop\n        name: noop\n"
        "        entry: 'true'\n        language: system\n        pass_filenames: false\n",
        encoding="utf-8",
    )
    for command in (["git", "init", "-q"], ["git", "add", "-A"]):
        subprocess.run(command, cwd=repo, check=True, capture_output=True)
    return repo


def _pre_commit() -> list[str] | None:
    found = shutil.which("pre-commit")
    if found:
        return [found]
    probe = subprocess.run([sys.executable, "-m", "pre_commit", "--version"], capture_output=True)
    return [sys.executable, "-m", "pre_commit"] if probe.returncode == 0 else None


def time_walk(root: Path, manifest: Path, repeat: int) -> tuple[list[float], list[float], int]:
    """In process: the walk and declarations (parse cache warm), and the sources model
    from a warm user cache (the stored model, once the tree answered as before)."""
    from shiplint.manifest.load import load_manifest
    from shiplint.sources.collect import _walk, read_sources
    from shiplint.sources.files import FileQueries

    loaded = load_manifest(manifest)
    walked, stored = [], []
    files = len(read_sources(root, loaded).project.files)
    for _ in range(repeat):
        start = time.perf_counter()
        _walk(root, loaded.sources, FileQueries())
        walked.append(time.perf_counter() - start)
        start = time.perf_counter()
        read_sources(root, loaded)
        stored.append(time.perf_counter() - start)
    return walked, stored, files


def _row(name: str, samples: list[Sample]) -> str:
    walls = [w for w, _ in samples]
    cpus = [c for _, c in samples]
    return (
        f"  {name:<46} wall {statistics.median(walls):6.3f} s "
        f"({min(walls):.3f}-{max(walls):.3f})   CPU {statistics.median(cpus):6.3f} s"
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=7, help="rounds (medians of these)")
    parser.add_argument("--root", type=Path)
    parser.add_argument("--manifest", type=Path)
    parser.add_argument("--cmake", action="append", default=[], help="one per config route")
    parser.add_argument(
        "--entry", type=Path, help="the shiplint console script to time (default: python -m)"
    )
    args = parser.parse_args()
    if args.repeat < 5:
        parser.error("--repeat: medians of at least 5 rounds")
    load_before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="shiplint-bench-sources-") as temporary:
        scratch = Path(temporary)
        if args.root is None:
            root = scratch / "project"
            manifest = generate(root)
        else:
            root, manifest = args.root.resolve(), args.manifest.resolve()
        entry = [str(args.entry.resolve())] if args.entry else [sys.executable, "-m", "shiplint"]
        # The hook's own command: the text report on stdout, which pre-commit captures.
        shiplint = [*entry, "check", "--manifest", str(manifest)]
        variants = Variants(scratch, root, installed=args.entry is not None)
        sources = [*shiplint, "--ignore", "SL1"]
        variants.hook("hook, no config evaluation, cold cache", sources, warm=False)
        variants.hook("hook, no config evaluation, warm cache", sources, warm=True)
        if args.cmake:
            routes = [*shiplint, *(f"--cmake={Path(c).resolve()}" for c in args.cmake)]
            label = f"hook, config on {len(args.cmake)} CMake routes"
            variants.hook(f"{label}, cold cache", routes, warm=False)
            variants.hook(f"{label}, warm cache", routes, warm=True)
        pre_commit, peer_repo = _pre_commit(), _noop_hook_repository(scratch)
        if pre_commit and peer_repo:
            command = [*pre_commit, "run", "noop", "--all-files"]
            _timed(command, variants.env, peer_repo)  # pre-commit's first run sets itself up
            variants.peer("peer: pre-commit run of a no-op hook", command, peer_repo)
        cmake = Path(args.cmake[0]).resolve() if args.cmake else shutil.which("cmake")
        if cmake:
            empty = scratch / "empty.cmake"
            empty.write_text("", encoding="utf-8")
            variants.peer("peer: cmake -P of an empty script", [str(cmake), "-P", str(empty)], REPO)
        if args.entry:
            python = args.entry.resolve().parent / "python"
            variants.peer("peer: the entry's python -c pass", [str(python), "-c", "pass"], REPO)
        samples = variants.measure(args.repeat)
        # The in-process walk keeps its parse cache in the scratch directory too.
        os.environ["XDG_CACHE_HOME"] = str(scratch / "walk-cache")
        walked, stored, files = time_walk(root, manifest, args.repeat)
    load_after = os.getloadavg()[0]
    print(f"root: {root if args.root else 'generated project'} ({files} CMake files read)")
    print(f"hook: {' '.join(entry)} check (in the checkout)")
    print(
        f"machine: {os.cpu_count()} cores, load average {load_before:.1f} before, "
        f"{load_after:.1f} after; medians of {args.repeat} rounds, variants alternating"
    )
    for name, taken in samples.items():
        print(_row(name, taken))
    medians = {name: statistics.median(w for w, _ in taken) for name, taken in samples.items()}
    peers = [name for name in medians if name.startswith("peer:")]
    for hook in (name for name in medians if name.startswith("hook") and "warm" in name):
        for peer in peers:
            print(
                f"  ratio (wall medians): {hook} / {peer[6:]} = {medians[hook] / medians[peer]:.2f}"
            )
    for label, taken in (
        ("walk + declarations (warm parse cache)", walked),
        ("sources model from a warm user cache", stored),
    ):
        print(
            f"in process, {label}: median {statistics.median(taken):.4f} s, min {min(taken):.4f} s"
        )
    print(f"lief imported: {'lief' in sys.modules}")


if __name__ == "__main__":
    main()
