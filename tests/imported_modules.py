"""Run the CLI in a child process and report the modules it imported.

What a run imports is part of its fixed cost, and of what can fail in it: tests pin
the modules a kind of run must not load. The child reports every module imported
beyond what the interpreter had before shiplint's CLI was imported.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.material import REPO

_SCRIPT = """
import json
import sys
before = set(sys.modules)
from shiplint.cli import main
code = main(sys.argv[1:])
print(json.dumps({"code": code, "imported": sorted(set(sys.modules) - before)}))
"""


def run_cli(*args: str, cache_home: Path, timeout: float = 600) -> tuple[int, set[str]]:
    """The exit code of `shiplint ARGS` in a child with its own user cache, and the
    modules it imported."""
    env = {**os.environ, "XDG_CACHE_HOME": str(cache_home)}
    result = subprocess.run(
        [sys.executable, "-c", _SCRIPT, *args],
        cwd=REPO, capture_output=True, text=True, timeout=timeout, check=False, env=env,
    )  # fmt: skip
    assert result.stdout, result.stderr
    outcome = json.loads(result.stdout.splitlines()[-1])
    return outcome["code"], set(outcome["imported"])


def loaded(imported: set[str], name: str) -> bool:
    """Whether `name` or a submodule of it is among `imported`."""
    return any(module == name or module.startswith(name + ".") for module in imported)
