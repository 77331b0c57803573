"""The user cache: a manifest the schema accepted once is not validated again.

What a run validated is told by the process itself: jsonschema is imported only
to validate, so a child process loading the manifest reports whether it was.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from shiplint import cache, validity
from shiplint.manifest.errors import ManifestError
from shiplint.manifest.load import load_manifest

REPO = Path(__file__).resolve().parent.parent
EXAMPLE = REPO / "examples" / "executorch" / "shiplint.yaml"

_LOAD = """
import sys
from pathlib import Path
from shiplint.manifest.errors import ManifestError
from shiplint.manifest.load import load_manifest
try:
    manifest = load_manifest(Path(sys.argv[1]))
    outcome = f"valid:{len(manifest.libraries)}"
except ManifestError as exc:
    outcome = f"invalid:{exc.problems[0].location.line}"
print(outcome, "jsonschema" in sys.modules)
"""


def _load_in_child(manifest: Path, cache_home: Path) -> list[str]:
    env = {**os.environ, "XDG_CACHE_HOME": str(cache_home)}
    result = subprocess.run(
        [sys.executable, "-c", _LOAD, str(manifest)],
        capture_output=True, text=True, timeout=60, check=False, env=env, cwd=REPO,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    return result.stdout.split()


def _entries(cache_home: Path) -> list[Path]:
    return sorted((cache_home / "shiplint" / "validated").glob("[0-9a-f]*"))


@pytest.fixture
def manifest(tmp_path: Path) -> Path:
    copy = tmp_path / "shiplint.yaml"
    copy.write_text(EXAMPLE.read_text(encoding="utf-8"), encoding="utf-8")
    return copy


def test_a_manifest_validated_once_is_not_validated_again(manifest: Path, tmp_path: Path) -> None:
    home = tmp_path / "cache"
    first = _load_in_child(manifest, home)
    second = _load_in_child(manifest, home)
    libraries = f"valid:{len(load_manifest(EXAMPLE).libraries)}"
    assert first == [libraries, "True"]
    assert second == [libraries, "False"]
    assert len(_entries(home)) == 1


def test_an_edited_manifest_is_validated_again(manifest: Path, tmp_path: Path) -> None:
    home = tmp_path / "cache"
    _load_in_child(manifest, home)
    text = manifest.read_text(encoding="utf-8")
    manifest.write_text(text + "\n# a comment changes the bytes, not the meaning\n", "utf-8")
    assert _load_in_child(manifest, home)[1] == "True"
    # An edit that breaks the schema is reported, whatever was accepted before.
    broken = text.replace("package:\n  name: executorch", "package:\n  name: 7", 1)
    assert broken != text
    manifest.write_text(broken, encoding="utf-8")
    line = text[: text.index("name: executorch")].count("\n") + 1
    assert _load_in_child(manifest, home) == [f"invalid:{line}", "True"]


@pytest.mark.parametrize(
    "damage",
    [
        pytest.param(lambda data: data[:-1], id="truncated"),
        pytest.param(lambda data: data[:-5] + b"wrong", id="payload-changed"),
        pytest.param(lambda data: b"", id="empty"),
        pytest.param(lambda data: b"valid", id="payload-only"),
    ],
)
def test_a_corrupt_entry_is_ignored(
    manifest: Path, tmp_path: Path, damage: Callable[[bytes], bytes]
) -> None:
    home = tmp_path / "cache"
    _load_in_child(manifest, home)
    (entry,) = _entries(home)
    entry.write_bytes(damage(entry.read_bytes()))
    # Not trusted: validated again, and the entry rewritten whole.
    assert _load_in_child(manifest, home)[1] == "True"
    assert _load_in_child(manifest, home)[1] == "False"


def test_a_schema_change_validates_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    schema = tmp_path / "schema.json"
    schema.write_text(json.dumps({"type": "object"}), encoding="utf-8")
    monkeypatch.setattr(validity, "schema_path", lambda name: schema)
    content = b"package: {name: x}\n"
    assert not validity.known_valid(content, "schema.json")
    validity.remember_valid(content, "schema.json")
    assert validity.known_valid(content, "schema.json")
    schema.write_text(json.dumps({"type": "object", "required": ["version"]}), encoding="utf-8")
    assert not validity.known_valid(content, "schema.json")


def test_an_invalid_manifest_is_never_remembered(tmp_path: Path) -> None:
    broken = tmp_path / "shiplint.yaml"
    broken.write_text("version: 1\npackage: {}\n", encoding="utf-8")
    for _ in range(2):
        with pytest.raises(ManifestError):
            load_manifest(broken)
    assert not validity.known_valid(broken.read_bytes(), "manifest.schema.json")


def test_the_cache_lives_under_xdg_cache_home(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert cache.cache_dir() == tmp_path / "shiplint"
    # The XDG spec: a relative value is invalid and ignored.
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/dir")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert cache.cache_dir() == tmp_path / "home" / ".cache" / "shiplint"


def test_an_unwritable_cache_costs_nothing_but_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory", encoding="utf-8")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker))
    cache.write("kind", "name", b"payload")
    assert cache.read("kind", "name") is None
    assert load_manifest(EXAMPLE).name == "executorch"


def _write_and_read(home: str, rounds: int) -> list[bytes | None]:
    os.environ["XDG_CACHE_HOME"] = home
    seen = []
    for i in range(rounds):
        cache.write("race", "entry", b"x" * (1000 + i % 7))
        seen.append(cache.read("race", "entry"))
    return seen


def test_concurrent_writers_never_leave_a_partial_entry(tmp_path: Path) -> None:
    with multiprocessing.get_context("spawn").Pool(4) as pool:
        results = pool.starmap(_write_and_read, [(str(tmp_path), 40)] * 4)
    payloads = {b"x" * (1000 + i) for i in range(7)}
    assert all(seen in payloads for run in results for seen in run)
    # Every temporary file was renamed into place or removed.
    assert [p.name for p in (tmp_path / "shiplint" / "race").iterdir()] == ["entry"]


_CHECK = """
import sys
from shiplint.cli import main
# An empty root: the manifest is loaded (validated or not), then its config source is
# missing there, a usage error: enough to see whether the manifest was validated.
code = main(["check", *sys.argv[3:], "--root", sys.argv[2], "--manifest", sys.argv[1]])
print(code, "jsonschema" in sys.modules)
"""


def _check_in_child(manifest: Path, cache_home: Path, *options: str) -> list[str]:
    env = {**os.environ, "XDG_CACHE_HOME": str(cache_home), "SHIPLINT_NO_CACHE": ""}
    result = subprocess.run(
        [sys.executable, "-c", _CHECK, str(manifest), str(cache_home.parent), *options],
        capture_output=True, text=True, timeout=60, check=False, env=env, cwd=REPO,
    )  # fmt: skip
    return result.stdout.split()


def test_no_cache_reuses_nothing_kept_and_still_keeps(manifest: Path, tmp_path: Path) -> None:
    home = tmp_path / "cache"
    first = _check_in_child(manifest, home)
    assert first[1] == "True"  # validated, then kept
    assert _check_in_child(manifest, home)[1] == "False"
    # --no-cache: the kept answer is not read; the run validates again, and keeps.
    refused = _check_in_child(manifest, home, "--no-cache")
    assert refused == ["2", "True"] == first
    assert len(_entries(home)) == 1
    assert _check_in_child(manifest, home)[1] == "False"


def test_refusing_reuse_lasts_for_its_block(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.delenv("SHIPLINT_NO_CACHE", raising=False)
    cache.write("kind", "entry", b"payload")
    with pytest.raises(RuntimeError), cache.refusing_reuse():
        assert cache.read("kind", "entry") is None
        cache.write("kind", "other", b"kept anyway")
        raise RuntimeError
    assert cache.read("kind", "entry") == b"payload"
    assert cache.read("kind", "other") == b"kept anyway"
    with cache.refusing_reuse(False):
        assert cache.read("kind", "entry") == b"payload"
    monkeypatch.setenv("SHIPLINT_NO_CACHE", "1")
    assert cache.read("kind", "entry") is None


def test_a_run_refusing_reuse_reads_what_it_wrote_itself(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.delenv("SHIPLINT_NO_CACHE", raising=False)
    cache.write("kind", "before", b"old")
    with cache.refusing_reuse():
        cache.write("kind", "now", b"this run's")
        assert cache.read("kind", "now") == b"this run's"
        assert cache.read("kind", "before") is None
    # A later refusing run did not write it: the entry is as old to it as any other.
    with cache.refusing_reuse():
        assert cache.read("kind", "now") is None
