"""The benchmark scripts still run against the code they time.

Nothing here times anything: every script must start and say how it is used, and the
inflating benchmark's readers (which call shiplint's block reader directly) must read
a real wheel's members to the bytes zipfile reads, so a change of that reader's
signature cannot leave the benchmark broken unnoticed.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import zipfile
import zlib
from pathlib import Path
from types import ModuleType

import pytest

from tests.material import other_wheel

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"
SCRIPTS = sorted(p for p in BENCHMARKS.glob("*.py"))


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.name)
def test_each_benchmark_starts_and_says_how_it_is_used(script: Path) -> None:
    done = subprocess.run(
        [sys.executable, str(script), "--help"], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("usage:")


def _bench_inflate() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_inflate", BENCHMARKS / "bench_inflate.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_inflating_benchmark_reads_what_zipfile_reads() -> None:
    bench = _bench_inflate()
    with zipfile.ZipFile(other_wheel("fmt")) as archive:
        expected = sum(info.file_size for info in archive.infolist())
        assert expected > 0
        assert bench._through_zipfile(archive) == expected
        assert bench._through(zlib)(archive) == expected
