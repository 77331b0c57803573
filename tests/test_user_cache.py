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


def _aged_entries(ages_in_days: dict[str, float], size: int) -> dict[str, Path]:
    """Entries of `size` payload bytes (two kinds), each last used `age` days before it
    was written."""
    paths = {}
    for index, (name, age) in enumerate(ages_in_days.items()):
        kind = ("kind-a", "kind-b")[index % 2]
        cache.write(kind, name, os.urandom(size))
        path = cache.cache_dir() / kind / name
        _age(path, age)
        paths[name] = path
    return paths


def _age(path: Path, days: float) -> None:
    """Move the file's times `days` back from its own modification time (no clock read)."""
    written = path.stat().st_mtime
    os.utime(path, (written - days * 86400, written - days * 86400))


@pytest.fixture
def user_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.delenv("SHIPLINT_CACHE_MAX_MB", raising=False)
    return tmp_path / "shiplint"


def test_the_cache_is_pruned_least_recently_used_first(user_cache: Path) -> None:
    paths = _aged_entries({f"e{age}": age for age in range(1, 11)}, 100_000)
    # Material that shares the directory (a wheel, a tool): never an entry, never removed.
    (user_cache / "wheels").mkdir()
    (user_cache / "wheels" / "pkg.whl").write_bytes(b"PK" + os.urandom(2_000_000))
    os.utime(user_cache / "wheels" / "pkg.whl", (0, 0))
    (user_cache / "stray").write_bytes(b"x")
    removed = cache.prune(500_000)
    # Over 500 kB: the oldest go until three quarters of it is left (three entries).
    assert sorted(name for name, path in paths.items() if path.exists()) == ["e1", "e2", "e3"]
    assert removed >= 7 * 100_000
    assert (user_cache / "wheels" / "pkg.whl").exists() and (user_cache / "stray").exists()
    assert cache.prune(500_000) == 0  # under the bound: nothing more


def test_a_read_keeps_an_entry_in_use(user_cache: Path) -> None:
    paths = _aged_entries({"old": 30, "older": 40, "used": 50}, 100_000)
    assert cache.read("kind-a", "used") is not None
    cache.prune(150_000)
    assert [name for name, path in paths.items() if path.exists()] == ["used"]


def test_pruning_is_done_at_most_once_a_day_by_a_write(
    user_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SHIPLINT_CACHE_MAX_MB", "0.2")
    paths = _aged_entries({f"e{age}": age for age in range(1, 6)}, 100_000)
    # The first write pruned (the cache was never pruned); later ones left it alone.
    stamp = user_cache / ".pruned"
    assert stamp.exists() and all(path.exists() for path in paths.values())
    _age(stamp, 2)
    cache.write("kind-a", "new", b"n")
    assert cache.read("kind-a", "new") == b"n"
    assert sorted(name for name, path in paths.items() if path.exists()) == ["e1"]


def test_a_writers_leftover_temporary_file_is_removed_after_a_day(user_cache: Path) -> None:
    (user_cache / "kind-a").mkdir(parents=True)
    stale = user_cache / "kind-a" / ".e.123.abcd.tmp"
    fresh = user_cache / "kind-a" / ".e.456.abcd.tmp"
    stale.write_bytes(b"")
    fresh.write_bytes(b"")
    _age(stale, 2)
    cache.prune(10**9)
    assert not stale.exists() and fresh.exists()


@pytest.mark.parametrize(
    ("value", "expected"),
    [("", 256 * 2**20), ("64", 64 * 2**20), ("0.5", 2**19), ("0", 0), ("-1", 256 * 2**20),
     ("lots", 256 * 2**20)],
)  # fmt: skip
def test_the_bound_is_read_from_the_environment(
    monkeypatch: pytest.MonkeyPatch, value: str, expected: int
) -> None:
    monkeypatch.setenv("SHIPLINT_CACHE_MAX_MB", value)
    assert cache.max_bytes() == expected
