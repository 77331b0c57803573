"""CMake evaluation: what a package config really publishes, on every configured CMake."""

from __future__ import annotations

from shiplint.cmake_eval.evaluate import evaluate_artifact, evaluate_source

__all__ = ["evaluate_artifact", "evaluate_source"]
