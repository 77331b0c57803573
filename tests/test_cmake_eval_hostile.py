"""Configs that misbehave on purpose, evaluated with real CMake: values holding line
separators, output without end, processes that leave the session, reading the caller's
environment through /proc, and an evaluation stopped from outside."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import threading
import uuid
from pathlib import Path

import pytest
from shiplint.cmake_eval import run
from shiplint.cmake_eval.cmake_binary import CMakeUnusable, identify
from shiplint.cmake_eval.model import FailureKind
from shiplint.manifest.model import Aggregate, Carries
from shiplint.request import EVALUATION_TIMEOUT, RunRequest

from tests.hostile.cases_faults import _descendants
from tests.material import NEW_CMAKE_VERSION, OLD_CMAKE_VERSION, REPO, cmake
from tests.test_cmake_eval_probe import LINUX, _evaluate, _manifest

AGGREGATE = _manifest(aggregates=(Aggregate("PKG_LIBRARIES", Carries(), ()),))


@pytest.mark.parametrize(
    "separator", ["\f", "\u2028", "\u2029", "\x85", "\x0b", "\x1c", "\r"], ids=repr
)
def test_a_value_holding_a_line_separator_comes_back_whole(tmp_path: Path, separator: str) -> None:
    config = f'set(pkg_FOUND TRUE)\nset(PKG_LIBRARIES "a{separator}b" "c")\n'
    (ev,) = _evaluate(tmp_path, config, the_manifest=AGGREGATE)
    assert ev.failure is None
    assert [e.raw for e in ev.aggregates[0].entries] == [f"a{separator}b", "c"]


def test_output_without_end_is_kept_bounded(tmp_path: Path) -> None:
    # 40 MB on stdout: kept as its head and tail, the rest counted.
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.20)\nproject(p NONE)\n"
        'string(REPEAT "x" 100000 line)\n'
        'foreach(i RANGE 400)\nmessage(STATUS "${line}")\nendforeach()\n'
    )
    binary = identify(str(cmake(NEW_CMAKE_VERSION)))
    outcome = run.configure(binary, tmp_path / "src", tmp_path / "work", LINUX, 60.0)
    assert outcome.returncode == 0
    assert len(outcome.stdout) <= run.OUTPUT_HEAD + run.OUTPUT_TAIL + 100
    assert "bytes of output not kept" in outcome.stdout


def _processes_with(marker: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        with contextlib.suppress(OSError):
            if entry.name.isdigit() and marker in (entry / "cmdline").read_bytes().replace(
                b"\0", b" "
            ).decode(errors="replace"):
                found.append(int(entry.name))
    return found


needs_namespaces = pytest.mark.skipif(
    not run.namespace_prefix(),
    reason="this system lets no unprivileged user make PID namespaces (unshare); "
    "docs/cmake-evaluation.md says what is then not guaranteed",
)


@needs_namespaces
def test_a_process_that_leaves_the_session_dies_with_the_evaluation(tmp_path: Path) -> None:
    marker = f"{300 + uuid.uuid4().int % 1000}.{uuid.uuid4().int % 10**6}"
    config = (
        f'execute_process(COMMAND sh -c "setsid sleep {marker} >/dev/null 2>&1 </dev/null &")\n'
        "set(pkg_FOUND TRUE)\n"
    )
    try:
        (ev,) = _evaluate(tmp_path, config)
        assert ev.failure is None
        assert _processes_with(f"sleep {marker}") == []
    finally:
        for pid in _processes_with(f"sleep {marker}"):
            os.kill(pid, signal.SIGKILL)


_READS_EVERY_ENVIRONMENT = (
    'execute_process(COMMAND sh -c "cat /proc/[0-9]*/environ | tr \\"\\\\\\\\000\\" \\" \\""'
    " OUTPUT_VARIABLE seen ERROR_QUIET)\n"
    'set(pkg_FOUND TRUE)\nset(PKG_LIBRARIES "${seen}")\n'
)


def environments_a_config_reads(tmp_path: Path) -> str:
    """What the config above saw of every process's environment (run in a child process:
    /proc shows the environment a process was started with)."""
    (ev,) = _evaluate(tmp_path, _READS_EVERY_ENVIRONMENT, the_manifest=AGGREGATE)
    return " ".join(e.raw for e in ev.aggregates[0].entries)


@needs_namespaces
def test_the_config_cannot_read_the_callers_environment_through_proc(tmp_path: Path) -> None:
    code = (
        "import sys\nfrom pathlib import Path\n"
        "from tests.test_cmake_eval_hostile import environments_a_config_reads\n"
        "print(environments_a_config_reads(Path(sys.argv[1])))\n"
    )
    env = {**os.environ, "SHIPLINT_TEST_SECRET": "do-not-leak-through-proc"}
    result = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path)],
        cwd=REPO, env=env, capture_output=True, text=True, check=True,
    )  # fmt: skip
    assert "HOME=" in result.stdout  # the config did read environments: its own
    assert "do-not-leak-through-proc" not in result.stdout


def test_stop_all_ends_a_running_evaluation_and_refuses_new_ones(tmp_path: Path) -> None:
    config = "execute_process(COMMAND sleep 600)\nset(pkg_FOUND TRUE)\n"
    results: list[object] = []
    worker = threading.Thread(
        target=lambda: results.extend(_evaluate(tmp_path, config, timeout=600.0))
    )
    worker.start()
    try:
        while not run.RUNS.live():
            worker.join(0.05)
        run.stop_all()
        worker.join()
        (ev,) = results
        assert ev.failure is not None and ev.failure.kind is FailureKind.TIMEOUT  # type: ignore[attr-defined]
        assert run.configure(identify(str(cmake(NEW_CMAKE_VERSION))), tmp_path, tmp_path / "w",
                             LINUX, 600.0).timed_out  # fmt: skip
    finally:
        run.RUNS.stopping = False


def test_a_default_evaluation_limit_always_applies() -> None:
    request = RunRequest(Path("."), False, (), ())
    assert request.evaluation_timeout == EVALUATION_TIMEOUT <= 20
    assert RunRequest(Path("."), False, (), (), cmake_timeout=5).evaluation_timeout == 5


@pytest.mark.parametrize("version", [OLD_CMAKE_VERSION, NEW_CMAKE_VERSION])
def test_a_cmake_stopped_from_outside_ends_the_run_as_stopped(tmp_path: Path, version: str) -> None:
    # A stopped CMake cannot finish: the run ends once it has stayed stopped, reported as
    # such, not at the time limit as a config that loops would be.
    config = "execute_process(COMMAND sleep 600)\nset(pkg_FOUND TRUE)\n"
    results: list[object] = []
    worker = threading.Thread(
        target=lambda: results.extend(
            _evaluate(tmp_path, config, versions=(version,), timeout=300.0)
        )
    )
    worker.start()
    stopped: list[int] = []
    try:
        while worker.is_alive() and not stopped:
            for pid, command in _descendants(os.getpid()):
                if (
                    " -S " in command
                    and command.rstrip().endswith("/build")
                    and "/probe" in command
                ):
                    os.kill(pid, signal.SIGSTOP)
                    stopped.append(pid)
                    break
            worker.join(0.1)
        worker.join()
    finally:
        for pid in stopped:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
    assert stopped
    (ev,) = results
    assert ev.failure is not None and ev.failure.kind is FailureKind.STOPPED  # type: ignore[attr-defined]
    assert "was stopped" in ev.failure.message  # type: ignore[attr-defined]


def test_a_cmake_that_stops_while_telling_its_version_is_unusable(tmp_path: Path) -> None:
    fake = tmp_path / "cmake"
    fake.write_text("#!/bin/sh\nkill -STOP $$\necho 'cmake version 3.30.0'\n")
    fake.chmod(0o755)
    with pytest.raises(CMakeUnusable, match="was stopped and did not continue"):
        identify(str(fake), timeout=300.0)
