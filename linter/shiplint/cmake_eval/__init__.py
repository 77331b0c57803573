"""CMake evaluation: what a package config really publishes, on every configured CMake.

The entry points load on first use: the rules import `cmake_eval.model` on every
run, and a run that evaluates nothing (a sources-only hook) must not pay for the
evaluator, its layouts and its subprocess machinery.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from shiplint.cmake_eval.evaluate import evaluate_artifact, evaluate_source

__all__ = ["evaluate_artifact", "evaluate_source"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        return getattr(importlib.import_module("shiplint.cmake_eval.evaluate"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
