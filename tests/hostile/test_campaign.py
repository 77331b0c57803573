"""The hostile campaign's short form: a fixed-seed pass over every class of generated input.

Each class runs in its own campaign process (it makes itself the child subreaper to count
processes a case leaves behind, which must not happen to pytest itself). A case fails on
an internal error, a traceback, a wrong exit code, a hang, a write outside its temporary
directory, a temporary file or a process left behind, or forbidden text in the output.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.hostile.campaign import CLASSES, SHORT
from tests.hostile.runner import REPO


@pytest.mark.parametrize("klass", sorted(CLASSES))
def test_short_campaign_class_ends_cleanly(klass: str, tmp_path: Path) -> None:
    records_path = tmp_path / "records.json"
    result = subprocess.run(
        [sys.executable, "-m", "tests.hostile.campaign", "--short", "--classes", klass,
         "--json", str(records_path)],
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": str(REPO / "linter")},
        capture_output=True,
        text=True,
        check=False,
    )  # fmt: skip
    assert records_path.exists(), result.stdout + result.stderr
    records = json.loads(records_path.read_text())
    assert len(records) == SHORT[klass]
    failed = [r for r in records if r["failed"]]
    assert failed == [], result.stdout
