"""The python stand-in answers a question again without starting Python only when
nothing but the question could change the answer (cmake_eval/python_memo.py).

Real CMake of both routes, evaluating configs that ask python3 through
execute_process. The interpreter the stand-in runs is found on PATH: here a sh
script put first on it, which appends a line to `$TMPDIR/python-starts` (in the
run's directory, where the confinement lets it write) and runs the real one; each
config reads that file back and publishes how many times Python really started.
"""

from __future__ import annotations

import os
import shutil
import zipfile
from pathlib import Path

import pytest
from shiplint.artifacts.archive import open_artifact
from shiplint.artifacts.inventory import list_artifact
from shiplint.cmake_eval import evaluate_artifact, target_host
from shiplint.cmake_eval.model import ConfigEvaluation
from shiplint.cmake_eval.python_memo import MEMO, pure
from shiplint.cmake_eval.run import Confinement, _fresh_memo, confinement
from shiplint.manifest.model import Aggregate, Carries, LibraryKind, Manifest

from tests.builders import library, manifest
from tests.material import NEW_CMAKE_VERSION, OLD_CMAKE_VERSION, cmake

BOTH = [OLD_CMAKE_VERSION, NEW_CMAKE_VERSION]

# `ask(<name> <code> [WORKING_DIRECTORY dir])`: the answer in _<name>.
_PRELUDE = r"""
function(ask name code)
  execute_process(COMMAND python3 -c "${code}" ${ARGN}
    OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE status)
  string(STRIP "${out}" out)
  set(_${name} "${out}" PARENT_SCOPE)
  string(FIND "${err}" "SyntaxWarning" warned)
  set(_${name}_warned ${warned} PARENT_SCOPE)
endfunction()
function(starts name)
  set(count 0)
  if(EXISTS "$ENV{TMPDIR}/python-starts")
    file(STRINGS "$ENV{TMPDIR}/python-starts" lines)
    list(LENGTH lines count)
  endif()
  set(_${name} ${count} PARENT_SCOPE)
endfunction()
set(SUFFIX "import sysconfig; print(sysconfig.get_config_var('EXT_SUFFIX'))")
set(USERBASE "import sysconfig; print(sysconfig.get_config_var('userbase'))")
"""


def _manifest() -> Manifest:
    return manifest(
        libraries=(library("pkg", LibraryKind.RUNTIME, components=("runtime",)),),
        aggregates=(Aggregate("PKG_ANSWERS", Carries(), ()),),
    )


@pytest.fixture
def counted_python(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real = shutil.which("python3")
    assert real is not None
    directory = tmp_path / "counting"
    directory.mkdir()
    script = directory / "python3"
    script.write_text(
        f'#!/bin/sh\necho started >> "$TMPDIR/python-starts"\nexec "{real}" "$@"\n',
        encoding="utf-8",
    )
    script.chmod(0o755)
    # `python`, another interpreter here: the real one told another user base.
    other = directory / "python"
    other.write_text(
        f'#!/bin/sh\necho started >> "$TMPDIR/python-starts"\n'
        f'PYTHONUSERBASE=/other-python exec "{real}" "$@"\n',
        encoding="utf-8",
    )
    other.chmod(0o755)
    monkeypatch.setenv("PATH", f"{directory}{os.pathsep}{os.environ['PATH']}")


def _evaluate(tmp_path: Path, body: str, names: tuple[str, ...], version: str) -> dict[str, str]:
    """Evaluate a config running `body`, publishing `_<name>` for each of `names`."""
    config = _PRELUDE + body + "\n"
    config += f'set(PKG_ANSWERS {" ".join(f""""{n}=${{_{n}}}" """.strip() for n in names)})\n'
    config += "set(pkg_FOUND TRUE)\n"
    path = tmp_path / "pkg-1.0-cp311-cp311-manylinux_2_28_x86_64.whl"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("pkg/share/cmake/pkg-config.cmake", config)
        archive.writestr(
            "pkg-1.0.dist-info/WHEEL",
            "Wheel-Version: 1.0\nTag: cp311-cp311-manylinux_2_28_x86_64\n",
        )
    the_manifest = _manifest()
    with open_artifact(path) as tree:
        models = evaluate_artifact(
            tree, list_artifact(tree, the_manifest), the_manifest, [str(cmake(version))], 60.0
        )
    (evaluation,) = [m for m in models if isinstance(m, ConfigEvaluation)]
    assert evaluation.failure is None, evaluation.failure
    (aggregate,) = evaluation.aggregates
    return dict(entry.raw.split("=", 1) for entry in aggregate.entries)


def _confined() -> bool:
    return confinement() is not Confinement.NONE


@pytest.mark.usefixtures("counted_python")
@pytest.mark.parametrize("version", BOTH)
def test_the_same_question_starts_python_once(tmp_path: Path, version: str) -> None:
    body = """
ask(a "${SUFFIX}")
starts(after_a)
ask(b "${SUFFIX}")
ask(c "${SUFFIX}")
starts(after_c)
"""
    answers = _evaluate(tmp_path, body, ("a", "b", "c", "after_a", "after_c"), version)
    assert answers["a"] == answers["b"] == answers["c"] == ".cpython-311-x86_64-linux-gnu.so"
    assert answers["after_a"] == "1"
    # Unconfined, nothing is remembered: the config could change the interpreter itself.
    assert answers["after_c"] == ("1" if _confined() else "3")


@pytest.mark.usefixtures("counted_python")
def test_stand_ins_in_the_run_directory_remember_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Where the run's file system lets programs run, the stand-ins live in it (in the
    # working directory of the config's commands): their own script is no module of it.
    monkeypatch.setattr(target_host, "_runs_programs", lambda directory: True)
    body = """
ask(a "${SUFFIX}")
ask(b "${SUFFIX}")
starts(after_b)
"""
    answers = _evaluate(tmp_path, body, ("a", "b", "after_b"), NEW_CMAKE_VERSION)
    assert answers["a"] == answers["b"] == ".cpython-311-x86_64-linux-gnu.so"
    assert answers["after_b"] == ("1" if _confined() else "2")


@pytest.mark.usefixtures("counted_python")
@pytest.mark.parametrize("version", BOTH)
def test_a_changed_environment_gets_a_fresh_answer(tmp_path: Path, version: str) -> None:
    body = """
set(ENV{PYTHONUSERBASE} /first)
ask(a "${USERBASE}")
set(ENV{PYTHONUSERBASE} /second)
ask(b "${USERBASE}")
starts(after_b)
set(ENV{PYTHONUSERBASE} /first)
ask(c "${USERBASE}")
starts(after_c)
set(ENV{SHIPLINT_TEST_UNRELATED} 1)
ask(d "${USERBASE}")
starts(after_d)
"""
    names = ("a", "b", "c", "d", "after_b", "after_c", "after_d")
    answers = _evaluate(tmp_path, body, names, version)
    assert (answers["a"], answers["b"], answers["c"]) == ("/first", "/second", "/first")
    assert answers["d"] == "/first"
    assert answers["after_b"] == "2"
    if _confined():
        # The first question again: remembered. Any other variable: asked again.
        assert (answers["after_c"], answers["after_d"]) == ("2", "3")


@pytest.mark.usefixtures("counted_python")
@pytest.mark.parametrize("version", BOTH)
def test_another_directory_or_a_file_there_gets_a_fresh_answer(
    tmp_path: Path, version: str
) -> None:
    # A sysconfig.py in the working directory is what a next start imports (`-c` puts
    # the directory first on sys.path): the question asked there again is asked anew.
    body = """
file(MAKE_DIRECTORY "${CMAKE_BINARY_DIR}/elsewhere")
ask(a "${SUFFIX}")
ask(b "${SUFFIX}" WORKING_DIRECTORY "${CMAKE_BINARY_DIR}/elsewhere")
starts(after_b)
file(WRITE "${CMAKE_BINARY_DIR}/elsewhere/sysconfig.py"
  "def get_config_var(name):\\n    return 'planted'\\n")
ask(c "${SUFFIX}" WORKING_DIRECTORY "${CMAKE_BINARY_DIR}/elsewhere")
ask(d "${SUFFIX}" WORKING_DIRECTORY "${CMAKE_BINARY_DIR}/elsewhere")
starts(after_d)
"""
    answers = _evaluate(tmp_path, body, ("a", "b", "c", "d", "after_b", "after_d"), version)
    assert answers["a"] == answers["b"] == ".cpython-311-x86_64-linux-gnu.so"
    assert answers["after_b"] == "2"
    # The planted module is imported (it lacks what the stand-in patches: Python fails
    # and prints nothing), as a real start does, each time: not the remembered answer.
    assert answers["c"] == answers["d"] == ""
    # Loaded from the working directory: never remembered.
    assert answers["after_d"] == "4"


@pytest.mark.usefixtures("counted_python")
@pytest.mark.parametrize("version", BOTH)
def test_a_lower_resource_limit_gets_a_fresh_start(tmp_path: Path, version: str) -> None:
    # Python cannot start in 8 MB of address space: the question asked under that
    # limit fails, as it does without a kept answer.
    body = r"""
ask(a "${SUFFIX}")
execute_process(COMMAND sh -c "ulimit -v 8000; exec python3 -c \"$1\"" sh "${SUFFIX}"
  OUTPUT_VARIABLE _b RESULT_VARIABLE _b_status ERROR_QUIET)
ask(c "${SUFFIX}")
starts(after_c)
"""
    names = ("a", "b", "b_status", "c", "after_c")
    answers = _evaluate(tmp_path, body, names, version)
    assert answers["a"] == answers["c"] == ".cpython-311-x86_64-linux-gnu.so"
    assert answers["b"] == "" and answers["b_status"] != "0"
    assert answers["after_c"] == ("2" if _confined() else "3")


@pytest.mark.usefixtures("counted_python")
@pytest.mark.parametrize("version", BOTH)
def test_python_and_python3_keep_their_own_answers(tmp_path: Path, version: str) -> None:
    # The same question, the same directory and environment, of two interpreters.
    body = """
ask(a "${USERBASE}")
execute_process(COMMAND python -c "${USERBASE}" OUTPUT_VARIABLE _b
  OUTPUT_STRIP_TRAILING_WHITESPACE)
ask(c "${USERBASE}")
starts(after_c)
"""
    answers = _evaluate(tmp_path, body, ("a", "b", "c", "after_c"), version)
    assert answers["b"] == "/other-python"
    assert answers["a"] == answers["c"] != "/other-python"
    assert answers["after_c"] == ("2" if _confined() else "3")


@pytest.mark.usefixtures("counted_python")
@pytest.mark.parametrize("version", BOTH)
def test_a_question_python_warns_about_is_asked_each_time(tmp_path: Path, version: str) -> None:
    # The compiler warns on stderr at every start: a kept answer would print nothing there.
    body = """
ask(a "import sys; print(sys.platform is 'linux')")
ask(b "import sys; print(sys.platform is 'linux')")
starts(after_b)
"""
    answers = _evaluate(tmp_path, body, ("a", "b", "a_warned", "b_warned", "after_b"), version)
    assert answers["a"] == answers["b"] in ("True", "False")
    assert answers["a_warned"] != "-1" and answers["b_warned"] != "-1"
    assert answers["after_b"] == "2"


@pytest.mark.usefixtures("counted_python")
@pytest.mark.parametrize("version", BOTH)
def test_a_question_reading_files_is_always_asked(tmp_path: Path, version: str) -> None:
    body = """
set(code "import os; print(os.path.exists('marker'), os.getcwd() != '')")
ask(a "${code}")
file(WRITE "${CMAKE_BINARY_DIR}/../marker" "")
ask(b "${code}")
starts(after_b)
"""
    answers = _evaluate(tmp_path, body, ("a", "b", "after_b"), version)
    assert answers["a"].startswith("False") and answers["b"].startswith("True")
    assert answers["after_b"] == "2"


@pytest.mark.parametrize("version", BOTH)
def test_the_stand_in_changes_no_variable_python_is_given(tmp_path: Path, version: str) -> None:
    # A shell changing a variable it imported exports the change: the stand-in's own
    # variables must never be ones of the environment Python is given.
    names = ("key", "memo", "a", "f", "q", "_shiplint_q", "_shiplint_env")
    sets = "\n".join(f"set(ENV{{{name}}} given-{name})" for name in names)
    printed = ", ".join(f"os.environ.get('{name}')" for name in names)
    body = f"""
{sets}
ask(a "import os; print({printed}, sep='|')")
ask(b "${{SUFFIX}}")
"""
    answers = _evaluate(tmp_path, body, ("a", "b"), version)
    assert answers["a"] == "|".join(f"given-{name}" for name in names)
    assert answers["b"] == ".cpython-311-x86_64-linux-gnu.so"


@pytest.mark.usefixtures("counted_python")
@pytest.mark.skipif(not _confined(), reason="no confinement here: no memo either")
def test_a_forged_answer_stays_inside_the_confinement(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A config can write a kept answer itself (the memo is in its run's directory): the
    # stand-in then runs it, as confined as the config's own commands. It changes the
    # config's own answer and writes nothing outside; nothing reaches the user cache.
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "user-cache"))
    outside = tmp_path / "outside"
    outside.mkdir()
    forged = f"touch '{outside}/escaped'; printf forged; exit 0"
    body = f"""
file(WRITE "$ENV{{HOME}}/{MEMO}/answer.forged" "{forged}\\n")
ask(a "${{SUFFIX}}")
starts(after_a)
"""
    (tmp_path / "wheel").mkdir()
    answers = _evaluate(tmp_path / "wheel", body, ("a", "after_a"), NEW_CMAKE_VERSION)
    assert (answers["a"], answers["after_a"]) == ("forged", "0")
    assert list(outside.iterdir()) == []
    kept = [p.name for p in (tmp_path / "user-cache").rglob("*")]
    assert not any(n.startswith(("answer.", "question.")) or n == MEMO for n in kept)


def test_the_memo_is_made_empty_for_each_confined_run(tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / MEMO).mkdir(parents=True)
    (home / MEMO / "an-earlier-answer").write_text("")
    _fresh_memo(home, Confinement.MOUNTS)
    assert list((home / MEMO).iterdir()) == []
    _fresh_memo(home, Confinement.NONE)
    assert not (home / MEMO).exists()


@pytest.mark.parametrize("linked", ["home", "memo"])
def test_the_memo_follows_no_link_an_earlier_config_left(tmp_path: Path, linked: str) -> None:
    # Made by shiplint itself, outside any confinement: a link in the run's directory
    # (a config writes there) must not lead it to remove or make anything elsewhere.
    outside = tmp_path / "outside"
    (outside / MEMO).mkdir(parents=True)
    (outside / MEMO / "kept").write_text("mine")
    run = tmp_path / "run"
    run.mkdir()
    home = run / "home"
    if linked == "home":
        home.symlink_to(outside)
    else:
        home.mkdir()
        (home / MEMO).symlink_to(outside / MEMO)
    _fresh_memo(home, Confinement.MOUNTS)
    assert (outside / MEMO / "kept").read_text() == "mine"
    assert sorted(p.name for p in outside.rglob("*")) == [MEMO, "kept"]
    if linked == "memo":
        assert (home / MEMO).is_dir() and not (home / MEMO).is_symlink()


@pytest.mark.parametrize(
    "code",
    [
        "import sysconfig; print(sysconfig.get_config_var('EXT_SUFFIX'))",
        "import sysconfig, platform; print(sysconfig.get_platform(), platform.machine(), sep='|')",
        "import sys; print(f'{sys.version_info.major}.{sys.version_info.minor}')",
        "from sysconfig import get_paths; print(';'.join(f'{k}={v}' for k, v in get_paths().items()))",
        "import sys; v = sys.version_info[:2]; print(v)",
    ],
)
def test_questions_about_the_interpreter_are_pure(code: str) -> None:
    assert pure(code)


@pytest.mark.parametrize(
    "code",
    [
        "import os; print(os.getcwd())",  # another module
        "import sys; print(sys.modules)",  # reaches every module
        "import sysconfig; print(sysconfig)",  # a module as data
        "import sysconfig; print(sysconfig.get_config_var)",  # prints an address
        "print(''.join)",  # prints an address
        "import sys; print('x', file=sys.stderr)",
        "print(**{'file': None})",
        "open('x', 'w')",
        "import sysconfig as s; print(s.get_platform())",
        "import sysconfig; x = sysconfig; print(x.get_platform())",
        "print('{0.__class__}'.format(1))",  # format fields read any attribute
        "print(().__class__)",
        "from sysconfig import get_platform; get_platform = 1",
        "import platform; print(platform.uname())",  # may run `uname -p`
        "import platform; print(platform.release())",  # setarch --uname-2.6 changes it
        "print(input())",
        "import sys\nif sys: pass",
        "not python (",
    ],
)
def test_anything_else_is_not(code: str) -> None:
    assert not pure(code)
