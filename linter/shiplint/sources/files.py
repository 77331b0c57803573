"""The sources walk's only way to the file system: each question asked, with its answer kept.

The walk and the build-declaration readers are a pure function of what they ask the
file system (a file's bytes, whether a path is a file or a directory, where a path
resolves to, whether a glob matches a file) and of the manifest's sources section. So
each question goes through `FileQueries`, which answers it and keeps the answer as
a short text (a file's bytes as their digest). A later run asks the same questions
again (`still_answered`): when every answer is the same, the walk would make the
same model, and the stored one can be used (`sources/model_cache.py`).
"""

from __future__ import annotations

import hashlib
import io
from pathlib import Path

from shiplint.sources.bounds import Refused, read_source

# The questions, by the name kept with each answer.
READ, TEXT, IS_FILE, IS_DIR, EXISTS, RESOLVE, GLOB = (
    "read", "text", "is-file", "is-dir", "exists", "resolve", "glob",
)  # fmt: skip

Question = tuple[str, str, str]  # (kind, path, glob pattern or "")


class FileQueries:
    """Answers the walk's questions about the file system and keeps every answer."""

    def __init__(self) -> None:
        self.answers: dict[Question, str] = {}
        # False once one question got two different answers in this run (a file edited
        # while it was read): the model then matches no single state of the tree.
        self.consistent = True

    def _keep(self, question: Question, answer: str) -> None:
        kept = self.answers.setdefault(question, answer)
        if kept != answer:
            self.consistent = False

    def read(self, path: Path) -> bytes:
        """`bounds.read_source(path)`: raises OSError or Refused as it does."""
        try:
            data = read_source(path)
        except (OSError, Refused) as exc:
            self._keep((READ, str(path), ""), _failure(exc))
            raise
        self._keep((READ, str(path), ""), _digest(data))
        return data

    def read_text(self, path: Path) -> str:
        """The file as `path.read_text(encoding="utf-8")` reads it, from one bounded read
        (`bounds.read_source`: a FIFO or a device is refused, not read forever): raises
        OSError, Refused or UnicodeDecodeError."""
        try:
            data = read_source(path)
            # Decoded as text mode decodes a file (universal newlines), from the one read.
            text = io.TextIOWrapper(io.BytesIO(data), encoding="utf-8").read()
        except (OSError, Refused, UnicodeDecodeError) as exc:
            self._keep((TEXT, str(path), ""), _failure(exc))
            raise
        self._keep((TEXT, str(path), ""), _digest(data))
        return text

    def outside(self, root: Path, path: Path) -> bool:
        """Whether `path`, its links followed, lies outside the resolved `root`: such a
        file is never read as a source (a `/proc/self/environ` include would put the
        environment in a finding and in the cache). A link loop counts as outside."""
        try:
            real = self.resolve(path)
        except RuntimeError:
            return True
        return real != root and root not in real.parents

    def is_file(self, path: Path) -> bool:
        return self._flag(IS_FILE, path, path.is_file())

    def is_dir(self, path: Path) -> bool:
        return self._flag(IS_DIR, path, path.is_dir())

    def exists(self, path: Path) -> bool:
        return self._flag(EXISTS, path, path.exists())

    def resolve(self, path: Path) -> Path:
        resolved = path.resolve()
        self._keep((RESOLVE, str(path), ""), str(resolved))
        return resolved

    def glob_has_file(self, base: Path, pattern: str) -> bool:
        """Some file under `base` matches `pattern`; False for a pattern glob refuses."""
        return self._flag(GLOB, base, _glob_has_file(base, pattern), pattern)

    def _flag(self, kind: str, path: Path, value: bool, pattern: str = "") -> bool:
        self._keep((kind, str(path), pattern), "1" if value else "0")
        return value


def still_answered(answers: dict[Question, str]) -> bool:
    """Whether the file system answers every question as it did when `answers` were kept."""
    asking = FileQueries()
    for question, answer in answers.items():
        _ask(asking, *question)
        if asking.answers.get(question) != answer:
            return False
    return True


def _ask(asking: FileQueries, kind: str, name: str, pattern: str) -> None:
    path = Path(name)
    try:
        if kind == READ:
            asking.read(path)
        elif kind == TEXT:
            asking.read_text(path)
        elif kind == IS_FILE:
            asking.is_file(path)
        elif kind == IS_DIR:
            asking.is_dir(path)
        elif kind == EXISTS:
            asking.exists(path)
        elif kind == RESOLVE:
            asking.resolve(path)
        elif kind == GLOB:
            asking.glob_has_file(path, pattern)
        # Another kind is a question this code does not ask: no answer, never the same.
    except (OSError, Refused, UnicodeDecodeError):
        pass  # the failure is the answer, kept like any other
    except RuntimeError:
        pass  # a symlink loop where a path resolved before (Path.resolve): no answer


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _failure(exc: Exception) -> str:
    if isinstance(exc, OSError):
        return f"!{type(exc).__name__}:{exc.errno}:{exc.strerror}"
    return f"!{type(exc).__name__}:{exc}"


def _glob_has_file(base: Path, pattern: str) -> bool:
    try:
        return any(p.is_file() for p in base.glob(pattern))
    except (ValueError, NotImplementedError, OSError):
        return False
