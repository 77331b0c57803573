"""shiplint: a declarative packaging linter for C++ SDKs shipped inside Python wheels."""

from __future__ import annotations

__version__ = "0.1.0"
