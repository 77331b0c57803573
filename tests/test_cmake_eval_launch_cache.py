"""The trials that choose how CMake is launched and confined run once per system, not once
per shiplint run: their answer is kept in the user cache, found again by a later process,
tried anew when what decides it changes, and never trusted further than a trial.

Each case runs real processes (a fresh interpreter per shiplint run, the real setpriv,
unshare and confine.py) against a user cache of its own."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from shiplint.cmake_eval import launch_cache, run
from shiplint.cmake_eval.run import Confinement

from tests.test_cmake_eval_probe import _evaluate

# What one shiplint process decides: the confinement, the namespace prefix, and
# whether it ran the trials itself.
_REPORT = (
    "from shiplint.cmake_eval import run\n"
    "import json\n"
    "s = run._system_facts()\n"
    "print(json.dumps([s.confinement.value, list(s.unshare), s.tried]))\n"
)


def _process(cache_home: Path, path: str | None = None) -> tuple[str, list[str], bool]:
    env = {**os.environ, "XDG_CACHE_HOME": str(cache_home)}
    if path is not None:
        env["PATH"] = path
    done = subprocess.run(
        [sys.executable, "-c", _REPORT], env=env, capture_output=True, text=True, check=True
    )
    confinement, unshare, tried = json.loads(done.stdout)
    return confinement, unshare, tried


def _failing_tool(directory: Path, name: str) -> None:
    """A `name` first on PATH that fails as a system without user namespaces makes it fail."""
    directory.mkdir(parents=True, exist_ok=True)
    tool = directory / name
    tool.write_text(
        f'#!/bin/sh\necho "{name}: unshare failed: Operation not permitted" >&2\nexit 1\n'
    )
    tool.chmod(tool.stat().st_mode | stat.S_IXUSR)


def test_a_later_process_takes_the_kept_answer_instead_of_trying(tmp_path: Path) -> None:
    first = _process(tmp_path)
    second = _process(tmp_path)
    assert first[2] is True  # an empty cache: the first process tried
    assert second[2] is False  # the second took the kept answer
    assert second[:2] == first[:2]
    # The kept answer is what this process finds by trying itself.
    assert first[0] == run._find_system(fresh=True).confinement.value


@pytest.mark.skipif(not run.namespace_prefix(), reason="user namespaces do not work here")
def test_another_unshare_on_path_is_tried_anew(tmp_path: Path) -> None:
    assert _process(tmp_path)[1]  # the system's unshare works, and that is kept
    tools = tmp_path / "tools"
    _failing_tool(tools, "unshare")
    confinement, unshare, tried = _process(tmp_path, f"{tools}{os.pathsep}{os.environ['PATH']}")
    # Not the kept answer: this unshare was tried, and it makes no namespace.
    assert tried is True and unshare == []
    assert confinement != Confinement.MOUNTS.value
    # A failed trial is not kept (it may pass next time): the next run tries again.
    assert _process(tmp_path, f"{tools}{os.pathsep}{os.environ['PATH']}")[2] is True


def test_what_decides_the_answer_is_in_its_key(tmp_path: Path) -> None:
    program = tmp_path / "confine.py"
    program.write_text("# one\n")
    tool = tmp_path / "unshare"
    tool.write_text("#!/bin/sh\n")
    tools: dict[str, str | None] = {"setpriv": None, "unshare": None}
    key = launch_cache.entry_key(tools, program)
    assert launch_cache.entry_key(tools, program) == key
    assert launch_cache.entry_key({**tools, "unshare": str(tool)}, program) != key
    program.write_text("# another confinement program\n")
    assert launch_cache.entry_key(tools, program) != key


@pytest.mark.skipif(run.confinement() is not Confinement.MOUNTS, reason="mounts do not work here")
def test_a_kept_answer_that_no_longer_holds_is_tried_again_and_confines(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The kept answer names an `unshare` that now makes no namespace (it runs its command
    # as it is): confine.py finds itself in the caller's mount namespace and refuses, and
    # the run goes on from fresh trials, confined.
    fake = tmp_path / "tools" / "unshare"
    fake.parent.mkdir()
    fake.write_text('#!/bin/sh\nwhile [ "$1" != "--" ]; do shift; done\nshift\nexec "$@"\n')
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    system = run._system_facts()
    stale = run._System(system.setpriv, (str(fake), "--"), Confinement.MOUNTS, tried=False)
    monkeypatch.setattr(run, "_system", stale)
    canary = tmp_path / "canary"
    canary.mkdir()
    config = (
        f'execute_process(COMMAND sh -c "echo spoiled > {canary}/new.txt")\nset(pkg_FOUND TRUE)\n'
    )
    (ev,) = _evaluate(tmp_path, config)
    assert list(canary.iterdir()) == []
    assert ev.failure is None and ev.found and not ev.unconfined
    assert run._system is not None and run._system.tried
