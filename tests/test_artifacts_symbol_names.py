"""Symbol names that are not UTF-8 (lief returns them as bytes) are read as text, and a run
over a library defining one ends in a report, in every format."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from shiplint.artifacts.reading import read_binary
from shiplint.cli import main

from tests.artifact_libs import pack_wheel
from tests.material import EXAMPLE_MANIFEST

SOURCE = 'int good = 1;\nint bad __asm__("bad\\377name") = 2;\nint f(void) { return bad; }\n'


@pytest.fixture(scope="module")
def odd_library(tmp_path_factory: pytest.TempPathFactory) -> Path:
    compiler = shutil.which("gcc")
    assert compiler, "a C compiler is test material here"
    work = tmp_path_factory.mktemp("odd")
    (work / "odd.c").write_text(SOURCE)
    out = work / "libexecutorch.so"
    subprocess.run(
        [compiler, "-shared", "-fPIC", "-Wl,-soname,libexecutorch.so", "-o", str(out),
         str(work / "odd.c")],
        check=True,
    )  # fmt: skip
    return out


def test_a_non_utf8_symbol_name_is_read_as_text(odd_library: Path) -> None:
    record = read_binary(odd_library.read_bytes(), "libexecutorch.so")
    names = [s.name for s in record.defined]  # type: ignore[union-attr]
    assert all(isinstance(n, str) for n in names)
    assert "bad\udcffname" in names


@pytest.mark.parametrize("fmt", ["text", "json", "sarif", "github", "markdown"])
def test_a_run_over_it_ends_in_a_report(
    odd_library: Path, tmp_path: Path, fmt: str, capsys: pytest.CaptureFixture[str]
) -> None:
    wheel = pack_wheel(
        tmp_path / "executorch-1.5.1-cp311-cp311-manylinux_2_28_x86_64.whl",
        {"executorch/lib/libexecutorch.so": odd_library},
    )
    code = main(["check", "--no-sources", "--select", "SL3,SL4", "--format", fmt,
                 "--manifest", str(EXAMPLE_MANIFEST), str(wheel)])  # fmt: skip
    captured = capsys.readouterr()
    assert code in (0, 1), captured.err
    assert "internal error" not in captured.err
    captured.out.encode("utf-8")
    if fmt in ("json", "sarif"):
        json.loads(captured.out)
