"""A forged or moved cache entry is never used, and no entry chooses what runs or where
shiplint writes: each kind of entry that decides a command, a path, the project's
configuration or a verdict, forged in the real format by someone without the user's key
(tests/cache_forgery.py), and, where the entry could hold a command or a path at all,
written with the key (as if the user's own shiplint had been misled into keeping it)."""

from __future__ import annotations

import marshal
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from shiplint import cache, validity
from shiplint.cmake_eval import compilers, launch_cache, run
from shiplint.cmake_eval.run import Confinement
from shiplint.config import load_config
from shiplint.manifest.errors import ManifestError
from shiplint.manifest.load import load_manifest

from tests.cache_forgery import WAYS, entry_path, forge, transplant

REPO = Path(__file__).resolve().parent.parent
EXAMPLE = REPO / "examples" / "executorch" / "shiplint.yaml"


# A user cache and a key of this module's tests' own.
pytestmark = pytest.mark.usefixtures("fresh_user_cache")


@pytest.mark.parametrize("way", WAYS)
def test_a_forged_entry_is_a_miss(way: str) -> None:
    cache.write("kind", "real", b"what this user's shiplint kept")
    forge("kind", "forged", b"what a forger wants read", way)
    assert cache.read("kind", "real") == b"what this user's shiplint kept"
    assert cache.read("kind", "forged") is None


def test_an_authentic_entry_moved_to_another_name_is_a_miss() -> None:
    cache.write("kind", "clean-input", b"verdict for a clean input")
    transplant("kind", "clean-input", "bad-input")
    assert cache.read("kind", "bad-input") is None
    cache.write("other-kind", "x", b"payload")
    shutil.copyfile(entry_path("other-kind", "x"), entry_path("kind", "x"))
    assert cache.read("kind", "x") is None


def test_entries_written_under_a_secret_verify_only_under_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(cache.SECRET_VARIABLE, "repository secret")
    cache.write("kind", "entry", b"payload")
    assert cache.read("kind", "entry") == b"payload"
    # With a secret, no key file is made: nothing of it travels with the directory.
    assert not (cache.cache_dir() / ".key").exists()
    monkeypatch.setenv(cache.SECRET_VARIABLE, "a fork's guess")
    assert cache.read("kind", "entry") is None
    cache.forget_secret()
    assert cache.read("kind", "entry") is None  # the directory's own key is another


def test_no_process_shiplint_starts_inherits_the_secret() -> None:
    code = (
        "import os, subprocess, sys\n"
        "import shiplint.cli\n"
        "print(subprocess.run(['env'], capture_output=True, text=True).stdout)\n"
    )
    env = {**os.environ, cache.SECRET_VARIABLE: "s3cr3t-value", "PYTHONPATH": str(REPO / "linter")}
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    assert "s3cr3t-value" not in done.stdout and "PATH=" in done.stdout


def test_the_key_file_is_private_and_made_once(fresh_user_cache: Path) -> None:
    cache.write("kind", "entry", b"payload")
    key = fresh_user_cache / ".key"
    assert key.stat().st_mode & 0o777 == 0o600
    assert fresh_user_cache.stat().st_mode & 0o777 == 0o700
    made = key.read_bytes()
    cache.write("kind", "other", b"payload")
    assert key.read_bytes() == made and len(made) == 32


def _project(tmp_path: Path, table: str) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    shutil.copy(EXAMPLE, root / "shiplint.yaml")
    (root / "pyproject.toml").write_text(f"[tool.shiplint]\n{table}", encoding="utf-8")
    return root


@pytest.mark.parametrize("way", WAYS)
def test_a_forged_pyproject_table_neither_hides_findings_nor_runs_a_program(
    tmp_path: Path, way: str
) -> None:
    root = _project(tmp_path, 'manifest = "shiplint.yaml"\nselect = ["SL3"]\n')
    assert load_config(root).select == ("SL3",)
    (kept,) = (cache.cache_dir() / "pyproject-table").iterdir()
    program = tmp_path / "planted"
    program.write_text("#!/bin/sh\n")
    program.chmod(0o755)
    forge(
        "pyproject-table",
        kept.name,
        marshal.dumps({"manifest": "shiplint.yaml", "ignore": ["SL"], "cmake": [str(program)]}),
        way,
    )
    config = load_config(root)
    assert config.ignore == () and config.cmake == () and config.select == ("SL3",)


@pytest.mark.parametrize("way", WAYS)
def test_a_forged_schema_verdict_does_not_skip_the_check(tmp_path: Path, way: str) -> None:
    broken = tmp_path / "shiplint.yaml"
    broken.write_text(EXAMPLE.read_text(encoding="utf-8").replace("name: executorch", "name: 7", 1))
    forge("validated", validity._name(broken.read_bytes(), "manifest.schema.json"), b"valid", way)
    with pytest.raises(ManifestError):
        load_manifest(broken)


def test_a_verdict_of_another_manifest_does_not_skip_the_check(tmp_path: Path) -> None:
    load_manifest(EXAMPLE)  # valid: remembered
    good = validity._name(EXAMPLE.read_bytes(), "manifest.schema.json")
    broken = tmp_path / "shiplint.yaml"
    broken.write_text(EXAMPLE.read_text(encoding="utf-8").replace("name: executorch", "name: 7", 1))
    transplant("validated", good, validity._name(broken.read_bytes(), "manifest.schema.json"))
    with pytest.raises(ManifestError):
        load_manifest(broken)


def _launch_key() -> str:
    tools = {name: shutil.which(name) for name in ("setpriv", "unshare")}
    return launch_cache._VERDICTS.key(launch_cache.entry_key(tools, run._CONFINE))


def _fresh_system(monkeypatch: pytest.MonkeyPatch) -> run._System:
    monkeypatch.setattr(run, "_system", None)
    return run._system_facts()


@pytest.mark.parametrize("authentic", [True, False], ids=["with-the-key", "forged"])
def test_a_kept_command_is_never_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, authentic: bool
) -> None:
    canary = tmp_path / "ran-from-the-cache"
    planted = ["/bin/sh", "-c", f'touch {canary}; exec "$@"', "sh"]
    entry = marshal.dumps((planted, planted, "none"))
    if authentic:
        cache.write("cmake-launch", _launch_key(), entry)
    else:
        forge("cmake-launch", _launch_key(), entry)
    system = _fresh_system(monkeypatch)
    assert system.tried  # the entry was not taken: the trials ran
    for mode in (Confinement.MOUNTS, Confinement.LANDLOCK):
        run.confines(mode)  # a real shell started through the launcher
    assert planted[0] not in system.setpriv + system.unshare
    assert not canary.exists()


def test_a_kept_verdict_is_rebuilt_into_the_launcher_from_path(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    tried = _fresh_system(monkeypatch)
    if tried.confinement is Confinement.NONE:
        pytest.skip("nothing confines here: no answer is kept")
    kept = _fresh_system(monkeypatch)
    assert not kept.tried
    assert (kept.setpriv, kept.unshare, kept.confinement) == (
        tried.setpriv,
        tried.unshare,
        tried.confinement,
    )
    setpriv, unshare, _ = marshal.loads(cache.read("cmake-launch", _launch_key()) or b"")
    assert {type(setpriv), type(unshare)} == {bool}


@pytest.mark.parametrize("way", WAYS)
def test_a_forged_verdict_cannot_turn_the_confinement_off(
    monkeypatch: pytest.MonkeyPatch, way: str
) -> None:
    entry = marshal.dumps((False, False, "none"))
    forge("cmake-launch", _launch_key(), entry, way)
    assert _fresh_system(monkeypatch).tried
    # Even written with the key, "none" is not an answer that is ever kept.
    cache.write("cmake-launch", _launch_key(), entry)
    assert _fresh_system(monkeypatch).tried


_ESCAPES = [
    pytest.param({"version_dir": "../../../../escaped"}, id="version-dir-climbs"),
    pytest.param({"version_dir": "/tmp/escaped"}, id="version-dir-absolute"),
    pytest.param({"files": {"../../../escaped.cmake": "x"}}, id="file-climbs"),
    pytest.param({"files": {"/tmp/escaped.cmake": "x"}}, id="file-absolute"),
    pytest.param({"files": {"CMakeLists.txt": "x"}}, id="file-not-cmakes"),
]


def _detection_entry(**changes: object) -> bytes:
    """A kept detection in its memo's form (marshal), with `changes` to its fields."""
    entry: dict[str, Any] = {
        "version_dir": "3.24.3",
        "files": {"CMakeSystem.cmake": "set(CMAKE_SYSTEM_NAME Linux)\n"},
        "cache": "CMAKE_PLATFORM_INITIALIZED:INTERNAL=1\n",
        "tools": {},
        "lookup": compilers._lookup(),
    }
    entry.update(changes)
    return marshal.dumps(tuple(entry.values()))


def _detection_name(given: bytes) -> str:
    return compilers.entry_key(given)


@pytest.mark.parametrize("changes", _ESCAPES)
def test_a_kept_detection_names_no_path(tmp_path: Path, changes: dict[str, object]) -> None:
    cache.write("cmake-compilers", _detection_name(b"k"), _detection_entry())
    assert compilers.load(b"k") is not None  # the well-formed entry is taken
    cache.write("cmake-compilers", _detection_name(b"k"), _detection_entry(**changes))
    assert compilers.load(b"k") is None
    bad = compilers.Detection(
        str(changes.get("version_dir", "3.24.3")),
        dict(changes.get("files", {"CMakeSystem.cmake": ""})),  # type: ignore[call-overload]
        "",
    )
    build = tmp_path / "a" / "b" / "c" / "d" / "build"
    with pytest.raises(ValueError):
        compilers.seed(build, bad)
    compilers.store(b"k2", bad)
    assert cache.read("cmake-compilers", _detection_name(b"k2")) is None
    assert not (tmp_path / "escaped").exists() and not Path("/tmp/escaped").exists()


def test_a_kept_detection_whose_toolchain_changed_is_a_miss(tmp_path: Path) -> None:
    tool = tmp_path / "cc"
    tool.write_text("a compiler")
    seen = compilers._fingerprints([str(tool)])
    cache.write("cmake-compilers", _detection_name(b"k"), _detection_entry(tools=seen))
    assert compilers.load(b"k") is not None
    tool.write_text("another build of the compiler")
    assert compilers.load(b"k") is None


@pytest.mark.parametrize("way", WAYS)
def test_forged_compiler_code_is_never_included(way: str) -> None:
    planted = _detection_entry(files={"CMakeSystem.cmake": 'execute_process(COMMAND touch "x")\n'})
    forge("cmake-compilers", _detection_name(b"k"), planted, way)
    assert compilers.load(b"k") is None


@pytest.mark.parametrize("way", WAYS)
def test_a_forged_or_moved_kept_read_is_not_used(way: str) -> None:
    from shiplint.artifacts.pointers import RelocatedPointers
    from shiplint.artifacts.reading import kept as kept_reads

    clean, read_badly = b"\x01" * 16, b"\x02" * 16
    image = RelocatedPointers(8, ((16, 32),), ((32, "kernel"),), frozenset())
    kept_reads.keep_pointers(clean, image)
    assert kept_reads.kept_pointers(clean) == image

    def name(fingerprint: bytes) -> str:
        return kept_reads._POINTERS_MEMO.key(fingerprint)

    transplant(kept_reads._POINTERS, name(clean), name(read_badly))
    assert kept_reads.kept_pointers(read_badly) is None
    empty = marshal.dumps((8, (), (), frozenset(), None))
    forge(kept_reads._POINTERS, name(read_badly), empty, way)
    assert kept_reads.kept_pointers(read_badly) is None
