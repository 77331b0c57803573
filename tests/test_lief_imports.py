"""lief is imported only where a file needs it: a Linux wheel's ELF files are read without it,
and a wheel whose lief reads are all kept in the user cache is read again without it.

Each run is a child process that records the processes it starts (the real ones, still
started) and reports whether lief was imported in it. lief always reads in the worker
process, so a run that needs it starts the worker; one over ELF files alone starts none.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.material import EXAMPLE_MANIFEST, REPO, wheel

_RUN = """
import json
import subprocess
import sys

started = []
_start = subprocess.Popen.__init__


def _recording(self, args, *rest, **options):
    started.append(" ".join(map(str, args)))
    _start(self, args, *rest, **options)


subprocess.Popen.__init__ = _recording
from shiplint.cli import main

code = main(sys.argv[1:])
workers = [a for a in started if "shiplint.artifacts.reading.worker" in a]
print(json.dumps({"code": code, "lief": "lief" in sys.modules, "workers": len(workers)}))
"""

_READ_IN_PROCESS = """
import json
import sys
from pathlib import Path
from shiplint.artifacts.archive import open_artifact
from shiplint.artifacts.reading import IN_PROCESS

path = Path(sys.argv[1])
with open_artifact(path.parent) as tree:
    (read,) = IN_PROCESS.records(tree, [path.name]).values()
    pointers = IN_PROCESS.pointers(tree, path.name)
print(json.dumps({"read": type(read.record).__name__, "lief": "lief" in sys.modules}))
"""


def _child(script: str, *args: str) -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, "-c", script, *args],
        cwd=REPO, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert done.stdout.strip(), done.stderr
    result: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def _check(platform: str, *options: str) -> dict[str, object]:
    argv = ["check", "--no-sources", "--manifest", str(EXAMPLE_MANIFEST), "--format", "json"]
    return _child(_RUN, *argv, *options, "--select", "SL3,SL4", str(wheel("1.5.1", platform)))


def test_a_linux_wheel_run_imports_no_lief_and_starts_no_worker() -> None:
    # Records (SL3) and relocated pointers (SL4) of every ELF file, read in this process.
    assert _check("manylinux_2_28_x86_64") == {"code": 1, "lief": False, "workers": 0}


def test_a_macos_wheel_run_reads_through_the_lief_worker(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cold"))  # nothing kept yet
    result = _check("macosx_14_0_arm64")
    assert result["lief"] is False  # lief is imported in the worker, never here
    assert result["workers"] == 1


@pytest.mark.parametrize("platform", ["macosx_14_0_arm64", "win_amd64"])
def test_a_warm_run_of_a_wheel_lief_reads_imports_no_lief_and_starts_no_worker(
    platform: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "user-cache"))
    cold = _check(platform)
    assert cold["workers"] == 1
    # Every record and pointer table lief read was kept: the same report without it.
    assert _check(platform) == {"code": cold["code"], "lief": False, "workers": 0}
    assert _check(platform, "--no-cache")["workers"] == 1


def _member(platform: str, name: str, tmp_path: Path) -> Path:
    import zipfile

    with zipfile.ZipFile(wheel("1.5.1", platform)) as archive:
        path = tmp_path / Path(name).name
        path.write_bytes(archive.read(name))
    return path


def test_reading_in_process_imports_lief_for_mach_o_alone(tmp_path: Path) -> None:
    elf = _member("manylinux_2_28_x86_64", "executorch/lib/libexecutorch.so", tmp_path)
    macho = _member("macosx_14_0_arm64", "executorch/lib/libexecutorch.dylib", tmp_path)
    assert _child(_READ_IN_PROCESS, str(elf)) == {"read": "BinaryRecord", "lief": False}
    assert _child(_READ_IN_PROCESS, str(macho)) == {"read": "BinaryRecord", "lief": True}
