"""A sources-only run reads no binary: lief is never imported (pre-commit speed)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
FIXTURE = REPO / "tests" / "fixtures" / "srcproject"

_SCRIPT = """
import sys
from pathlib import Path
from shiplint.cli import main
code = main(["check", "--root", sys.argv[1], "--manifest", sys.argv[2], "--format", "json",
             "--output", sys.argv[3]])
print(code, "lief" in sys.modules, "tree_sitter" in sys.modules)
"""


def test_sources_run_does_not_import_lief(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-c", _SCRIPT, str(FIXTURE), str(FIXTURE / "shiplint.yaml"),
         str(tmp_path / "report.json")],
        cwd=REPO, capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    # Exit 0 (only the SL208 info), the CMake reader ran, lief did not load.
    assert result.stdout.split() == ["0", "False", "True"]
