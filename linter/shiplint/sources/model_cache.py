"""The sources model of the last run, reused while the file system answers as it did.

The walk and the declaration readers are a pure function of the manifest's sources
section, the root, their own code, and the answers of the file system to their
questions (`sources/files.py`). An entry is found by a key holding everything but the
answers (the code's bytes and the grammar, Python's version, the root, the sources
section); it keeps the questions, their answers, and the model. A later run asks the
questions again: when every answer is the same, the stored model is the one the walk
would make; when one differs, the entry is made again and replaces it. So one entry
per checkout and manifest, whatever is edited; no answer outlives its file.
"""

from __future__ import annotations

import functools
import os
import sys
from pathlib import Path
from typing import Any

from shiplint import cache
from shiplint.manifest.model import Sources
from shiplint.memo import Memo
from shiplint.sources.files import FileQueries, still_answered
from shiplint.sources.model import SourceModel
from shiplint.sources.model_codec import decode, encode

_PACKAGE = Path(__file__).resolve().parent
# The modules outside this package whose code the walk runs (a test keeps the list whole).
_ALSO_RUN = ("diagnostics.py", "plural.py", "platforms.py", "manifest/model.py", "fastclass.py")


def stored(root: Path, sources: Sources) -> SourceModel | None:
    """The model stored for this root and sources section, if the file system still
    answers every question its walk asked as it did then."""
    kept = _MODELS.get(*_inputs(root, sources))
    if kept is None:
        return None
    questions, model = kept
    return model if still_answered(questions) else None


def store(root: Path, sources: Sources, files: FileQueries, model: SourceModel) -> None:
    """Keep `model` with the questions `files` answered while it was made."""
    if not files.consistent:
        return  # a file changed while the walk read it: the model is of no one state
    _MODELS.put((files.answers, model), *_inputs(root, sources))


def _encode(kept: tuple[dict[Any, Any], SourceModel]) -> tuple[Any, Any]:
    answers, model = kept
    # In the order asked: a later run meets an edit to the top-level files first.
    return tuple((*question, answer) for question, answer in answers.items()), encode(model)


def _decode(stored: Any) -> tuple[dict[Any, Any], SourceModel]:
    answers, raw = stored
    questions = {(kind, path, pattern): answer for kind, path, pattern, answer in answers}
    return questions, decode(raw)


def _inputs(root: Path, sources: Sources) -> tuple[bytes, ...]:
    # The root as given (the model keeps it) and as an absolute path (a relative root
    # names another checkout from another directory).
    where = f"{root}\0{os.path.abspath(root)}".encode()
    return sys.version.encode(), where, _text(sources)


def _text(sources: Sources) -> bytes:
    # The section's repr holds every field (frozen dataclasses of tuples and strings),
    # the marks the declarations' findings point at included.
    return repr(sources).encode()


@functools.cache
def _identity() -> bytes:
    # The code, and the grammar its parses come from.
    grammar = cache.installed("tree_sitter_cmake", "_binding*")
    return cache.source_bytes(_code_files()) + b"\0" + grammar


def _code_files() -> tuple[Path, ...]:
    """Every module of this package, and the others the walk runs."""
    return (*sorted(_PACKAGE.glob("*.py")), *(_PACKAGE.parent / name for name in _ALSO_RUN))


# Kept per root and sources section, with the questions the walk asked and their
# answers; a model the codec cannot keep (nested past marshal's depth) is walked again.
_MODELS: Memo[tuple[dict[Any, Any], SourceModel]] = Memo(
    "sources-model", _identity, encode=_encode, decode=_decode
)
