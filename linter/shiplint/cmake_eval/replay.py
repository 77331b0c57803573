"""Keep a probe's configure run and replay it while nothing it was given or reached changed.

A config evaluation costs a CMake process, and most of it is the config's own work
(ExecuTorch's runs `python3` at every inclusion): a pre-commit hook on every
commit, or a second check of the same wheel, would pay it again for the same
answer. So the run's outputs (the probe's result files, the return code, stdout
and stderr, the confinement, what a `.cmake.in` source was configured into) are
kept in the user cache (`shiplint.memo`) and laid out again in a fresh run
directory, where everything after `configure()` reads them as from a run.

An entry is found by a digest of everything the run is given: the probe project's
text and the laid-out tree (every path; the bytes of each file that has any; an
artifact's tree is digested from its plan, the same records as once written, so a
replay never writes it), with
the run's temporary directory replaced by a placeholder; the CMake binary (path,
size, modification time, inode, version); the platform arguments, languages and the
kept compiler detection (its entry and content); PATH, the one variable a run
inherits; the confinement this system offers; the user id and kernel release;
shiplint's version and this format. A kept entry is plain data, checked field by
field before it is used: one of another form is a miss.

What the config reaches outside its tree is recorded from CMake's own trace of the
config's files (trace.py) on the run that is kept, and checked again before a
replay: each program `execute_process` ran, looked up on PATH again (its file's
target, size, modification time and inode); each absolute path the config named
outside the run's directory and CMake's own modules, and each PATH/FILEPATH entry
of the run's CMakeCache.txt (a find_* result, a dependency's `<dep>_DIR`): the same
identity, or still absent; and when the config searched the system (find_package,
find_dependency, find_*), the directories those searches start from under each
prefix, so a package installed or removed there is a miss. A changed one, or a
trace that was cut, means the config is evaluated again.

Not covered, so a replay could differ from a run: what a program run by the config
reads (python3's own modules), the network, files a config reads through a program
rather than a CMake command, a package installed below a search directory without
changing it (a new version directory inside an existing package's), and CMake's
own modules edited in place. `--no-cache` (or SHIPLINT_NO_CACHE=1) evaluates again; docs/cmake-evaluation.md.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import shutil
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any

from shiplint.cmake_eval import compiler_need, compilers
from shiplint.cmake_eval import run as launch
from shiplint.cmake_eval.cmake_binary import CMakeBinary
from shiplint.cmake_eval.layout import Layout, PlannedTree
from shiplint.cmake_eval.probe import WATCHED_READS
from shiplint.cmake_eval.run import (
    RUNS,
    Confinement,
    RunOutcome,
    configure,
    platform_arguments,
    run_script,
)
from shiplint.cmake_eval.target_host import NOTES, stand_ins_digest
from shiplint.cmake_eval.trace import (
    Reached,
    TraceReader,
    read_cache_paths,
    trace_arguments,
)
from shiplint.fastclass import dataclass
from shiplint.memo import Memo, constant

_PLACEHOLDER = "@shiplint-run-directory@"
# An entry holds the probe's results, a few kilobytes; one past this is not kept.
MAX_ENTRY_BYTES = 32 * 1024 * 1024
# Paths whose identity says nothing about their content.
_VOLATILE = ("/proc", "/sys", "/dev")
# Where find_package and the find_* calls start under each prefix (CMake's search
# procedure); a package installed or removed there changes one of these directories.
_SEARCH_DIRS = (
    "",
    "lib",
    "lib64",
    "lib32",
    "libx32",
    "share",
    "include",
    "bin",
    "lib/cmake",
    "lib64/cmake",
    "share/cmake",
)
_SYSTEM_PREFIXES = ("/usr/local", "/usr", "/", "/opt")


@dataclass(frozen=True)
class _Run:
    """One CMake run as the cache sees it: what decides it and what it leaves."""

    cmake: CMakeBinary
    # The run's temporary directory: its path is a placeholder in keys and entries.
    root: Path
    # What the run is given besides its files (arguments, languages...), as JSON data.
    given: list[object]
    # Directories (or files, or a tree still to write) whose paths and bytes it is given.
    inputs: tuple[Path | PlannedTree, ...]
    # What it writes that is read after it: files, or directories of files.
    outputs: tuple[Path, ...]
    # Files among the inputs that the run itself writes (a configured .cmake.in).
    products: frozenset[Path] = frozenset()
    # The run's CMakeCache.txt, for what its find_* calls found.
    cmake_cache: Path | None = None


def configure_kept(
    cmake: CMakeBinary,
    probe: Path,
    layout: Layout,
    work: Path,
    timeout: float,
    languages: tuple[str, ...],
    stand_ins: Path | None = None,
    tentative: bool = False,
    given: frozenset[str] = frozenset(),
) -> RunOutcome:
    """The probe's configure run (see run.configure): replayed when an entry for the same
    inputs is kept and what the config reached is unchanged; else run under CMake's trace
    and kept. A run refusing reuse (`cache.refusing_reuse`: --no-cache) finds no kept
    entry it did not write itself, so it runs, and keeps the fresh run.

    A `tentative` run is one made without the languages a consumer would enable: its
    outcome says why it may have answered otherwise with them (compiler_need.py),
    beside what the probe sets itself (`given`), and is kept with that answer."""
    root = work.parent
    products = frozenset(item.output for item in layout.configure)
    described = _Run(
        cmake=cmake,
        root=root,
        given=[
            "configure",
            platform_arguments(layout.platform, languages),
            list(languages),
            [[str(item.template), str(item.output)] for item in layout.configure],
            # The stand-ins answering for the artifact's platform, by what they are (they
            # may live outside the run's directory, under a name of their own).
            stand_ins_digest(stand_ins) if stand_ins is not None else None,
        ],
        inputs=(
            layout.planned or layout.root,
            probe,
            *{item.template.parent for item in layout.configure},
        ),
        # The results, what the run configured, and what the stand-ins noted the host
        # answered (in the run's HOME).
        outputs=(probe / "results", *sorted(products), work / "home" / NOTES),
        products=products,
        cmake_cache=work / "build" / "CMakeCache.txt",
    )

    def run(fifo: Path | None) -> RunOutcome:
        layout.write()  # CMake reads the tree: no longer only planned
        # The package's files, and what the run configures from a .cmake.in.
        sources = sorted({*layout.traced_files, *products})
        extra = tuple(trace_arguments(fifo, sources)) if fifo is not None else ()
        return configure(
            cmake,
            probe,
            work,
            layout.platform,
            timeout,
            languages,
            writable=root,
            extra=extra,
            path_first=(stand_ins,) if stand_ins is not None else (),
        )

    def judged(reached: Reached | None) -> str | None:
        if not tentative:
            return None
        if reached is None:
            return "the run was not traced"
        traced = frozenset(str(p) for p in (*layout.traced_files, *products))
        return compiler_need.shown_by(reached, traced, given) or compiler_need.read_by_package(
            probe / "results" / WATCHED_READS, traced
        )

    return _kept(
        described, run, work, timeout, lambda: _detection(cmake, layout, languages), judged
    )


def script_kept(
    cmake: CMakeBinary,
    script: Path,
    work: Path,
    root: Path,
    inputs: tuple[Path, ...],
    outputs: tuple[Path, ...],
    timeout: float,
) -> RunOutcome:
    """`cmake -P script` (see run.run_script), replayed or run and kept as configure_kept;
    `inputs` are the files it includes, `outputs` what it writes, all inside `root`."""
    described = _Run(
        cmake=cmake,
        root=root,
        given=["script", _relative(str(script), root)],
        inputs=(*inputs, script),
        outputs=outputs,
    )

    def run(fifo: Path | None) -> RunOutcome:
        if fifo is None:
            return run_script(cmake, script, work, timeout)
        sources = sorted(p for i in inputs for p in (i.rglob("*.cmake") if i.is_dir() else [i]))
        return run_script(cmake, script, work, timeout, extra=tuple(trace_arguments(fifo, sources)))

    return _kept(described, run, work, timeout, lambda: "")


def _kept(
    described: _Run,
    run: Callable[[Path | None], RunOutcome],
    work: Path,
    timeout: float,
    detection: Callable[[], str | None],
    judged: Callable[[Reached | None], str | None] = lambda _: None,
) -> RunOutcome:
    started = time.monotonic()
    given = _given(described)
    decided = detection()
    if decided is not None:
        replayed = _replay(_RUNS_KEPT.get(given, decided.encode()), described, timeout)
        if replayed is not None:
            return replace(replayed, seconds=time.monotonic() - started, reused=True)
    work.mkdir(parents=True, exist_ok=True)
    fifo = work / "trace.fifo"
    try:
        # json-v1 traces: CMake 3.17+ (the probe needs 3.21 and says so itself).
        reader = TraceReader(fifo) if described.cmake.version >= (3, 17) else None
    except OSError:
        reader = None  # no FIFO here: run untraced, and keep nothing
    if reader is None:
        return replace(run(None), compiler_need=judged(None))
    try:
        outcome = run(fifo)  # traced into the FIFO
    finally:
        # Also when the run raised (its tree could not be written): no thread left waiting.
        reached = reader.finish()
    # Kept with it: a replay of a run that may have needed the compilers says so too.
    outcome = replace(outcome, compiler_need=judged(reached))
    if outcome.timed_out or outcome.halted or RUNS.stopping or not reached.complete:
        return outcome
    decided = detection()  # a detection made by this run is what a replay starts from
    if decided is not None:
        entry = _entry(outcome, reached, described)
        if entry is not None:
            _RUNS_KEPT.put(entry, given, decided.encode())
    return outcome


def _given(described: _Run) -> bytes:
    """Everything the run is given but the compiler detection, digested."""
    digest = hashlib.sha256()
    cmake, root = described.cmake, described.root
    binary = os.stat(cmake.path)
    uname = os.uname()
    digest.update(
        json.dumps(
            [
                os.getuid(),
                [uname.release, uname.machine],
                cmake.path,
                os.path.realpath(cmake.path),
                [binary.st_size, binary.st_mtime_ns, binary.st_ino],
                cmake.version_text,
                os.environ.get("PATH"),
                # What keeps the config's writes in (it changes what a config can do),
                # asked through the module as the run itself asks it.
                launch.confinement().value,
                described.given,
            ]
        )
        .replace(str(root), _PLACEHOLDER)
        .encode()
    )
    for item in described.inputs:
        if isinstance(item, PlannedTree):
            digest.update(_planned_digest(item, str(root)))
        else:
            digest.update(_tree_digest(item, root, described.products))
    return digest.digest()


# A record per directory and file, sorted by path: the same bytes whether a tree is
# walked on disk or read from its plan.
_Record = tuple[str, bytes]


def _tree_digest(directory: Path, root: Path, skip: frozenset[Path]) -> bytes:
    """Every path under `directory` (a file: itself; named relative to `root`), and each
    file's bytes with the run directory's path made the placeholder."""
    if directory.is_file():
        return _records_digest([_file_record(str(directory), root, os.path.islink(directory))])
    skipped = {str(path) for path in skip}
    records: list[_Record] = []
    pending = [str(directory)]
    while pending:
        current = pending.pop()
        records.append(_directory_record(current, root))
        # scandir's entries know their type: an empty file costs one lstat.
        with os.scandir(current) as entries:
            for entry in entries:
                if entry.is_dir(follow_symlinks=False):
                    pending.append(entry.path)
                elif entry.path not in skipped:  # else written by the run itself (a .cmake.in)
                    symlink = entry.is_symlink()
                    empty = not symlink and entry.stat(follow_symlinks=False).st_size == 0
                    records.append(_file_record(entry.path, root, symlink, empty))
    return _records_digest(records)


# The CMakes of one evaluation ask for the same tree's digest at once, from their threads:
# one computes it, the others wait for it (the GIL would run them one after another).
_PLANNED_LOCK = threading.Lock()


def _planned_digest(planned: PlannedTree, root: str) -> bytes:
    """`_tree_digest` of the tree once written, from its plan (each CMake's run asks it)."""
    with _PLANNED_LOCK:
        return _planned_digest_once(planned, root)


@functools.lru_cache(maxsize=4)
def _planned_digest_once(planned: PlannedTree, root: str) -> bytes:
    # A wheel's plan holds thousands of members: each record is the written path with
    # the run directory made the placeholder, as `_directory_record` and `_file_record`
    # make it, built by plain string operations.
    base = str(planned.root)
    placeholder = _PLACEHOLDER.encode()
    root_bytes = root.encode()
    records = [
        _directory_record(_joined(base, directory) if directory else base, root)
        for directory in planned.directories()
    ]
    for name, data in planned.files.items():
        path = _relative(
            os.path.join(base, name) if name.startswith("/") else f"{base}/{name}", root
        )
        record = b"f" + path.encode() + b"\0"
        if data:
            data = data.replace(root_bytes, placeholder)
            record += len(data).to_bytes(8, "little") + data
        records.append((path, record))
    return _records_digest(records)


def _joined(base: str, name: str) -> str:
    """os.path.join(base, name), by concatenation for a relative name (nearly all)."""
    return os.path.join(base, name) if name.startswith("/") else f"{base}/{name}"


def _records_digest(records: list[_Record]) -> bytes:
    return hashlib.sha256(b"".join(record for _, record in sorted(records))).digest()


def _directory_record(path: str, root: Path | str) -> _Record:
    relative = _relative(path, root)
    return relative, b"d" + relative.encode() + b"\0"


def _file_record(path: str, root: Path, symlink: bool, empty: bool = False) -> _Record:
    relative = _relative(path, root)
    record = b"f" + relative.encode() + b"\0"
    if symlink:
        record += b"l" + os.readlink(path).encode() + b"\0"
    elif not empty:
        with open(path, "rb") as stream:
            data = stream.read()
        data = data.replace(str(root).encode(), _PLACEHOLDER.encode())
        record += len(data).to_bytes(8, "little") + data
    return relative, record


def _relative(path: str, root: Path | str) -> str:
    return path.replace(str(root), _PLACEHOLDER)


def _detection(cmake: CMakeBinary, layout: Layout, languages: tuple[str, ...]) -> str | None:
    """The kept detection's entry and content the run starts from (without languages,
    the system's alone); None when none is kept, or its toolchain changed: then nothing
    is replayed."""
    arguments = platform_arguments(layout.platform, languages)
    given = compilers.inputs(cmake, arguments, languages)
    kept = compilers.load(given)
    if kept is None:
        return None
    return (
        compilers.entry_key(given)
        + hashlib.sha256(json.dumps(asdict(kept), sort_keys=True).encode()).hexdigest()
    )


@dataclass(frozen=True)
class _Kept:
    """A kept run: its outcome (the run directory's path a placeholder), the files it
    wrote, and the identities of what it reached, checked again before a replay."""

    returncode: int
    stdout: str
    stderr: str
    seconds: float
    confinement: Confinement
    # Each file the run wrote (its path and text, the run directory a placeholder).
    outputs: dict[str, str]
    programs: dict[str, object]
    paths: dict[str, object]
    searched: dict[str, object]
    # Why a run made without languages may have answered otherwise with them, or None
    # (RunOutcome.compiler_need): kept, so a replay makes the evaluation with them at once.
    compiler_need: str | None = None


def _encode(kept: _Kept) -> Any:
    return {
        "outcome": {
            "returncode": kept.returncode,
            "stdout": kept.stdout,
            "stderr": kept.stderr,
            "seconds": kept.seconds,
            "confinement": kept.confinement.value,
        },
        "outputs": kept.outputs,
        "programs": kept.programs,
        "paths": kept.paths,
        "searched": kept.searched,
        "compiler_need": kept.compiler_need,
    }


def _decode(entry: Any) -> _Kept:
    """The kept run, each field of the type it was kept with (else not this code's entry)."""
    outcome = entry["outcome"]
    returncode, stdout, stderr = outcome["returncode"], outcome["stdout"], outcome["stderr"]
    seconds = outcome["seconds"]
    fields = (entry["outputs"], entry["programs"], entry["paths"], entry["searched"])
    need = entry["compiler_need"]
    if not (
        (need is None or isinstance(need, str))
        and type(returncode) is int
        and isinstance(stdout, str)
        and isinstance(stderr, str)
        and type(seconds) in (int, float)
        and all(isinstance(f, dict) and all(isinstance(k, str) for k in f) for f in fields)
        and all(isinstance(text, str) for text in fields[0].values())
    ):
        raise TypeError("not a kept run")
    confinement = Confinement(outcome["confinement"])
    return _Kept(returncode, stdout, stderr, seconds, confinement, *fields, need)


# Keyed by everything the run is given (`_given`) and the compiler detection it starts
# from; the identity names the entry's form.
_RUNS_KEPT: Memo[_Kept] = Memo(
    "cmake-evaluations", constant(b"format 4"), _encode, _decode, largest=MAX_ENTRY_BYTES
)


def _entry(outcome: RunOutcome, reached: Reached, described: _Run) -> _Kept | None:
    if outcome.returncode is None:
        return None  # stopped at the time limit: never kept
    root = described.root
    outputs = {}
    for output in described.outputs:
        files = sorted(output.iterdir()) if output.is_dir() else [output]
        for path in files:
            if path.is_file():
                outputs[_relative(str(path), root)] = _text(path, root)
    skipped = _skipped(described.cmake, root)
    paths = [p for p in reached.paths if not _skipped_path(p, skipped)]
    if described.cmake_cache is not None:
        cached = read_cache_paths(described.cmake_cache)
        found = [p for p in cached if not _skipped_path(p, skipped)]
        paths += found
        # A dependency's <dep>_DIR: the config files in it, which the trace does not show.
        paths += [
            str(f) for p in found if os.path.isdir(p) for f in sorted(Path(p).glob("*.cmake"))
        ]
    return _Kept(
        outcome.returncode,
        _relative(outcome.stdout, root),
        _relative(outcome.stderr, root),
        outcome.seconds,
        outcome.confinement,
        outputs,
        _programs(sorted(reached.programs)),
        _identities(sorted(set(paths))),
        _identities(search_dirs()) if reached.searched else {},
        None if outcome.compiler_need is None else _relative(outcome.compiler_need, root),
    )


def _text(path: Path, root: Path) -> str:
    return _relative(path.read_bytes().decode("utf-8", errors="surrogateescape"), root)


def _skipped(cmake: CMakeBinary, root: Path) -> tuple[str, ...]:
    """The run's own directory and CMake's modules: what the key already decides."""
    prefix = Path(os.path.realpath(cmake.path)).parent.parent
    modules = [str(p) for p in (prefix / "share").glob("cmake*")]
    return (str(root), os.path.realpath(root), *modules, *_VOLATILE)


def _skipped_path(path: str, skipped: Sequence[str]) -> bool:
    return any(path == s or path.startswith(s.rstrip("/") + "/") for s in skipped)


def _programs(names: Iterable[str]) -> dict[str, object]:
    """Each program as execute_process finds it: a path as given, else looked up on PATH."""
    out: dict[str, object] = {}
    for name in names:
        found = name if "/" in name else shutil.which(name, path=os.environ.get("PATH", ""))
        out[name] = None if found is None else _identity(found)
    return out


def _identities(paths: Iterable[str]) -> dict[str, object]:
    return {path: _identity(path) for path in paths}


def _identity(path: str) -> object:
    """A path's final target, kind, size, modification time and inode; None: absent."""
    try:
        real = os.path.realpath(path)
        info = os.stat(real)
    except (OSError, ValueError):
        return None
    return [real, info.st_mode >> 12, info.st_size, info.st_mtime_ns, info.st_ino]


def search_dirs() -> list[str]:
    """The directories a find_package or find_* search starts from under each prefix:
    each PATH entry (its parent for a bin or sbin) and the system prefixes."""
    prefixes: list[str] = []
    for entry in os.environ.get("PATH", "").split(os.pathsep):
        if entry.startswith("/"):
            entry = entry.rstrip("/") or "/"
            prefixes.append(
                os.path.dirname(entry) if os.path.basename(entry) in ("bin", "sbin") else entry
            )
    prefixes += _SYSTEM_PREFIXES
    out: list[str] = []
    for prefix in dict.fromkeys(prefixes):
        out += [os.path.join(prefix, sub) if sub else prefix for sub in _SEARCH_DIRS]
        # Debian's multiarch directories (lib/x86_64-linux-gnu/cmake).
        for multiarch in sorted(Path(prefix, "lib").glob("*-linux-*")):
            out += [str(multiarch), str(multiarch / "cmake")]
    return list(dict.fromkeys(out))


def _replay(kept: _Kept | None, described: _Run, timeout: float) -> RunOutcome | None:
    """The kept run laid out into this run's directory, or None (a miss)."""
    if kept is None or kept.seconds > timeout:
        return None  # a run that would not finish within this run's limit is run again
    if kept.programs != _programs(kept.programs) or kept.paths != _identities(kept.paths):
        return None
    if kept.searched and kept.searched != _identities(search_dirs()):
        return None
    here = str(described.root)
    targets = {Path(name.replace(_PLACEHOLDER, here)): t for name, t in kept.outputs.items()}
    allowed = [Path(o) for o in described.outputs]
    if not all(any(p == o or p.parent == o for o in allowed) for p in targets):
        return None  # an entry naming a file the run does not write is not this run's
    try:
        for path, text in targets.items():
            _write(path, text.replace(_PLACEHOLDER, here))
    except OSError:
        # A half-written replay must not meet a real run's file(APPEND)s: start it clean.
        for path in targets:
            path.unlink(missing_ok=True)
        return None
    return RunOutcome(
        kept.returncode,
        kept.stdout.replace(_PLACEHOLDER, here),
        kept.stderr.replace(_PLACEHOLDER, here),
        kept.seconds,
        kept.confinement,
        compiler_need=(
            None if kept.compiler_need is None else kept.compiler_need.replace(_PLACEHOLDER, here)
        ),
    )


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text.encode("utf-8", errors="surrogateescape"))
