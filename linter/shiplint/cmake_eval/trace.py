"""What a config reached outside its own tree, read from CMake's trace of the config's files.

CMake traces the commands of the files named by `--trace-source` (3.14+), with
their arguments expanded (`--trace-expand`), one JSON record a line
(`--trace-format=json-v1`, 3.17+), into the file `--trace-redirect` names
(3.16+). That file is a FIFO here, drained by a thread while CMake runs: a config
that loops prints its trace into memory that stays bounded, never onto the disk.

Of the records, only the commands that reach outside matter: the programs
`execute_process` runs (each COMMAND's first word) and the absolute paths named by
`include`, `file`, `if`/`elseif`/`while` (EXISTS, IS_DIRECTORY...), the `find_*`
calls and the like. The probe's own files are not traced: their paths are the
run's own.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import threading
import time
from dataclasses import field
from pathlib import Path

from shiplint.cmake_eval.detected_names import DETECTED
from shiplint.fastclass import dataclass

# Commands whose arguments name files or programs the config depends on.
_REACHING = frozenset(
    {
        "include",
        "file",
        "if",
        "elseif",
        "while",
        "find_package",
        "find_dependency",
        "find_library",
        "find_path",
        "find_file",
        "find_program",
        "execute_process",
        "configure_file",
        "load_cache",
        "get_filename_component",
        "cmake_path",
    }
)
# Commands whose effect a compiler detection can change (compiler_need.py): they enable
# or use a language, or run code the trace of the package's files does not show.
_COMPILING = frozenset(
    {
        "enable_language",
        "project",
        "try_compile",
        "try_run",
        "add_library",
        "add_executable",
        "add_subdirectory",
        "subdirs",
        "cmake_language",
    }
)
# Targets of these kinds are never built: declaring one uses no compiler.
_UNBUILT = frozenset({"IMPORTED", "INTERFACE", "ALIAS"})
# Calls that search the system's prefixes: what they find depends on what is installed.
SEARCHING = frozenset(
    {"find_package", "find_dependency", "find_library", "find_path", "find_file", "find_program"}
)
_CMD = re.compile(rb'"cmd":"([A-Za-z0-9_]+)"')
# An absolute path inside an argument: at its start, after a separator, or after -L/-I/-F.
_PATH = re.compile(r"""(?:^|(?<=[\s;=:"'(,])|(?<=-[LIF]))(/[^\s;"'<>|*?$]*)""")
# A trace past this is not read further (a config looping until its time limit): the
# run is then not kept, since what it reached is not known in full.
MAX_TRACE_BYTES = 64 * 1024 * 1024
# How long finish() tries to end a reader no CMake wrote to.
_FINISH_SECONDS = 5.0
MAX_NAMED = 4096


@dataclass
class Reached:
    """What the traced files reached: programs by the name they were run as, paths."""

    programs: set[str] = field(default_factory=set)
    paths: set[str] = field(default_factory=set)
    # The config made a call that searches the system (find_package, find_library...).
    searched: bool = False
    # False: the trace was cut, unreadable or never written; what was reached is unknown.
    complete: bool = False
    # What a compiler detection could answer otherwise (compiler_need.py): commands that
    # use a compiler or run untraced code, and arguments naming what the detection sets:
    # (the command or name, "<file>:<line>").
    compiler_uses: list[tuple[str, str]] = field(default_factory=list)
    # What the traced files included: absolute paths, or CMake module names.
    included: set[str] = field(default_factory=set)


def trace_arguments(fifo: Path, sources: list[Path]) -> list[str]:
    """The arguments that make CMake trace `sources` into `fifo`."""
    return [
        "--trace-expand",
        "--trace-format=json-v1",
        f"--trace-redirect={fifo}",
        *(f"--trace-source={source}" for source in sources),
    ]


class TraceReader:
    """Drains the trace FIFO in a thread while CMake runs, keeping only what reached out."""

    def __init__(self, fifo: Path) -> None:
        self._fifo = fifo
        os.mkfifo(fifo, 0o600)
        self._reached = Reached()
        self._thread = threading.Thread(target=self._drain, daemon=True)
        self._thread.start()

    def _drain(self) -> None:
        reached = self._reached
        total = 0
        cut = False
        try:
            with open(self._fifo, "rb") as stream:
                for line in stream:
                    total += len(line)
                    if cut or total > MAX_TRACE_BYTES:
                        cut = True
                        continue  # drained, not read: CMake must not block on a full pipe
                    _take(line, reached)
                    if len(reached.paths) + len(reached.programs) > MAX_NAMED:
                        cut = True
        except OSError:
            return
        reached.complete = not cut and total > 0

    def finish(self) -> Reached:
        """What the trace showed, once CMake has ended. A CMake that never opened the FIFO
        (it failed first, or never started) leaves the thread waiting in open(): a writer
        that opens and closes lets it end with an empty, incomplete trace. Such a writer
        cannot open before the thread is in open() (the FIFO has no reader yet), so it tries
        until the thread has ended, for a few seconds at most."""
        deadline = time.monotonic() + _FINISH_SECONDS
        while self._thread.is_alive() and time.monotonic() < deadline:
            with contextlib.suppress(OSError):
                os.close(os.open(self._fifo, os.O_WRONLY | os.O_NONBLOCK))
            self._thread.join(timeout=0.05)
        if self._thread.is_alive():
            return Reached()  # something still holds the FIFO open: not known in full
        return self._reached


def _take(line: bytes, reached: Reached) -> None:
    match = _CMD.search(line)
    if match is None:
        return
    command = match.group(1).decode("ascii").lower()
    # Expanded arguments naming what the detection sets: a name made at run time
    # (`if(${name})`) that the file's text does not show.
    naming = DETECTED.search(line) is not None
    if command not in _REACHING and command not in _COMPILING and not naming:
        return
    try:
        record = json.loads(line)
    except ValueError:
        return
    arguments = record.get("args") if isinstance(record, dict) else None
    if not isinstance(arguments, list):
        return
    words = [a for a in arguments if isinstance(a, str)]
    if naming:
        _take_naming(words, record, reached)
    if command in _COMPILING:
        _take_compiling(command, words, record, reached)
        return
    if command not in _REACHING:
        return
    if command == "include" and words:
        reached.included.add(words[0])
    if command in SEARCHING:
        reached.searched = True
    if command == "execute_process":
        reached.programs.update(_programs(words))
    for word in words:
        reached.paths.update(named_paths(word))


def _take_naming(words: list[str], record: dict[str, object], reached: Reached) -> None:
    for word in words:
        for found in DETECTED.finditer(word.encode("utf-8", "surrogateescape")):
            _use(reached, found.group(0).decode("ascii", "replace"), record)


def _use(reached: Reached, what: str, record: dict[str, object]) -> None:
    if len(reached.compiler_uses) < MAX_NAMED:
        reached.compiler_uses.append((what, f"{record.get('file')}:{record.get('line')}"))


def _take_compiling(
    command: str, words: list[str], record: dict[str, object], reached: Reached
) -> None:
    if command in ("add_library", "add_executable") and _UNBUILT.intersection(words[1:]):
        return
    _use(reached, command, record)


def _programs(words: list[str]) -> list[str]:
    """The first word of each COMMAND of an execute_process call."""
    return [
        words[index + 1]
        for index, word in enumerate(words[:-1])
        if word == "COMMAND" and words[index + 1]
    ]


def named_paths(text: str) -> list[str]:
    """The absolute paths `text` names (a glob is cut at its first wildcard)."""
    return [path.rstrip("/") or "/" for path in _PATH.findall(text)]


def read_cache_paths(cache: Path) -> list[str]:
    """The absolute paths CMakeCache.txt holds as PATH or FILEPATH entries (what a find_*
    call or a find_package found, <dep>_DIR included)."""
    try:
        text = cache.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return []
    out: list[str] = []
    for line in text.splitlines():
        name, _, value = line.partition("=")
        if name.endswith((":PATH", ":FILEPATH")):
            out += [item for item in value.split(";") if item.startswith("/")]
    return out
