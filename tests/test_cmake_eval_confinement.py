"""A package config's writes stay inside its evaluation's temporary directory: hostile
configs evaluated by real CMake (both routes) under each confinement this system offers
(read-only mounts in a user namespace, Landlock), and the finding that says when neither
works."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from shiplint.checks.config_eval import evaluation_not_confined
from shiplint.cmake_eval import confine, run
from shiplint.cmake_eval.run import Confinement

from tests.material import NEW_CMAKE_VERSION, OLD_CMAKE_VERSION
from tests.test_cmake_eval_probe import _evaluate, _manifest

MODES = [
    pytest.param(
        mode,
        marks=pytest.mark.skipif(
            not run.confines(mode), reason=f"{mode.value} confinement does not work here"
        ),
        id=mode.value,
    )
    for mode in (Confinement.MOUNTS, Confinement.LANDLOCK)
]
VERSIONS = [OLD_CMAKE_VERSION, NEW_CMAKE_VERSION]


def _canary(tmp_path: Path) -> Path:
    """A directory the config aims at, outside the evaluation's, with files to spoil."""
    canary = tmp_path / "canary"
    canary.mkdir()
    for name in ("keep.txt", "remove-me.txt", "rename-me.txt"):
        (canary / name).write_text("untouched\n")
    return canary


def _state(directory: Path) -> dict[str, str]:
    return {p.name: p.read_text() for p in sorted(directory.iterdir())}


def _commands_writing_to(canary: Path) -> str:
    """What a config can run to write outside: shell writes, renames, removals, links."""
    script = (
        f"echo spoiled > {canary}/keep.txt; echo new > {canary}/new.txt; "
        f"mkdir {canary}/dir; rm -f {canary}/remove-me.txt; "
        f"mv {canary}/rename-me.txt {canary}/renamed.txt; ln -s /etc/passwd {canary}/link; "
        f"mkfifo {canary}/fifo; touch {Path.home()}/.shiplint-confinement-probe; true"
    )
    return f'execute_process(COMMAND sh -c "{script}")\n'


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("mode", MODES)
def test_commands_a_config_runs_write_nothing_outside(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, mode: Confinement, version: str
) -> None:
    monkeypatch.setattr(run, "confinement", lambda: mode)
    canary = _canary(tmp_path)
    before = _state(canary)
    config = (
        _commands_writing_to(canary)
        + 'execute_process(COMMAND sh -c "echo inside > ${CMAKE_BINARY_DIR}/inside.txt")\n'
        + 'file(READ "${CMAKE_BINARY_DIR}/inside.txt" inside)\n'
        + 'if(inside STREQUAL "inside\\n")\n  set(pkg_FOUND TRUE)\nendif()\n'
    )
    (ev,) = _evaluate(tmp_path, config, versions=(version,))
    assert _state(canary) == before
    assert not (Path.home() / ".shiplint-confinement-probe").exists()
    # Writes inside the evaluation's directory still work: the probe's answers come back.
    assert ev.failure is None and ev.found
    assert not ev.unconfined


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(
    "command",
    [
        "file(WRITE {canary}/new.txt spoiled)",
        "file(APPEND {canary}/keep.txt spoiled)",
        "file(MAKE_DIRECTORY {canary}/dir)",
        "file(REMOVE {canary}/remove-me.txt)",
        "file(RENAME {canary}/rename-me.txt {canary}/renamed.txt)",
        "file(TOUCH {canary}/touched.txt)",
        "file(COPY {config_dir} DESTINATION {canary})",
        "configure_file({config} {canary}/configured.cmake COPYONLY)",
    ],
    ids=lambda c: c.split("(")[0] + "-" + c.split("(")[1].split(" ")[0],
)
def test_cmake_commands_of_a_config_write_nothing_outside(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, mode: Confinement, version: str, command: str
) -> None:
    monkeypatch.setattr(run, "confinement", lambda: mode)
    canary = _canary(tmp_path)
    before = _state(canary)
    config = (
        command.format(
            canary=canary,
            config_dir="${CMAKE_CURRENT_LIST_DIR}",
            config="${CMAKE_CURRENT_LIST_FILE}",
        )
        + "\nset(pkg_FOUND TRUE)\n"
    )
    (ev,) = _evaluate(tmp_path, config, versions=(version,))
    assert _state(canary) == before
    # CMake stops at the refused write (a consumer would see the same error) or, for
    # file(REMOVE), goes on: either way the evaluation ran confined.
    assert ev.failure is not None or command.startswith("file(REMOVE")
    assert not ev.unconfined


def test_the_confinement_in_use_is_the_first_that_works_here() -> None:
    chosen = run.confinement()
    working = [m for m in (Confinement.MOUNTS, Confinement.LANDLOCK) if run.confines(m)]
    assert chosen is (working[0] if working else Confinement.NONE)


def test_an_unconfined_evaluation_says_so(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(run, "confinement", lambda: Confinement.NONE)
    (ev,) = _evaluate(tmp_path, "set(pkg_FOUND TRUE)\n")
    assert ev.failure is None and ev.unconfined
    (finding,) = evaluation_not_confined(_manifest(), ev)
    assert "nothing keeping its writes inside" in finding.message
    assert finding.location == ev.config


@pytest.mark.parametrize("mode", MODES)
def test_a_confined_evaluation_is_not_reported(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, mode: Confinement
) -> None:
    monkeypatch.setattr(run, "confinement", lambda: mode)
    (ev,) = _evaluate(tmp_path, "set(pkg_FOUND TRUE)\n")
    assert ev.failure is None and not ev.unconfined
    assert list(evaluation_not_confined(_manifest(), ev)) == []


def test_read_only_mounts_are_refused_in_the_callers_own_mount_namespace(tmp_path: Path) -> None:
    # Run by mistake outside a namespace of its own (as root), the remounts would make the
    # caller's system read-only: the wrapper checks first and runs nothing.
    target = tmp_path / "written"
    fence = tmp_path.parent
    result = subprocess.run(
        [sys.executable, "-I", "-S", confine.__file__, "mounts", str(tmp_path),
         str(fence), str(confine.mount_namespace()), "--", "touch", str(target)],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert result.returncode == confine.REFUSED
    assert "not in a mount namespace of its own" in result.stderr
    assert not target.exists()
    probe = tmp_path / "still-writable"
    probe.write_text("x")  # this process's file system is still writable
    assert probe.read_text() == "x"


def test_a_wrapper_given_no_command_refuses_to_run() -> None:
    result = subprocess.run(
        [sys.executable, "-I", "-S", confine.__file__, "landlock", "/tmp", "--"],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert result.returncode == confine.REFUSED and "usage:" in result.stderr


@pytest.mark.parametrize("mode", MODES)
def test_a_confinement_that_lets_a_write_outside_through_refuses_to_run(
    tmp_path: Path, mode: Confinement
) -> None:
    # The fence (where a write must be refused) lies inside the writable directory here:
    # the confinement lets the write through, so the wrapper runs nothing.
    writable, target = tmp_path / "writable", tmp_path / "ran"
    fence = writable / "fence"
    fence.mkdir(parents=True)
    wrapper = [sys.executable, "-I", "-S", confine.__file__, mode.value, str(writable), str(fence)]
    if mode is Confinement.MOUNTS:
        wrapper = [*run.namespace_prefix(), *wrapper, str(confine.mount_namespace())]
    result = subprocess.run(
        [*wrapper, "--", "touch", str(target)], capture_output=True, text=True, check=False
    )
    assert result.returncode == confine.REFUSED
    assert "a write outside the writable directory went through" in result.stderr
    assert not target.exists() and list(fence.iterdir()) == []


@pytest.mark.parametrize("mode", MODES)
def test_a_confinement_that_refuses_the_write_outside_runs_the_command(
    tmp_path: Path, mode: Confinement
) -> None:
    writable, fence = tmp_path / "writable", tmp_path / "fence"
    writable.mkdir()
    fence.mkdir()
    wrapper = [sys.executable, "-I", "-S", confine.__file__, mode.value, str(writable), str(fence)]
    if mode is Confinement.MOUNTS:
        wrapper = [*run.namespace_prefix(), *wrapper, str(confine.mount_namespace())]
    result = subprocess.run(
        [*wrapper, "--", "touch", str(writable / "ran")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert (writable / "ran").exists() and list(fence.iterdir()) == []


def test_the_launcher_knows_how_the_wrapper_refuses() -> None:
    assert (run.REFUSED, run.REFUSAL) == (confine.REFUSED, confine.REFUSAL)
