"""The cache directory as someone else may have left it: owned by another user, writable
by others, a FIFO or a link to /dev/zero where an entry should be, a kind directory or
the prune stamp that is a link. Nothing hangs, nothing is read past a bound, nothing is
written through a link, and a directory that is not the user's own is not used (said
once). Reads that could hang run in a child process with a time limit, as a guard: the
assertion is what the read returned, never how long it took."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from shiplint import cache

REPO = Path(__file__).resolve().parent.parent
ROOT = os.geteuid() == 0


@pytest.fixture(autouse=True)
def user_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    monkeypatch.delenv("SHIPLINT_NO_CACHE", raising=False)
    cache.forget_secret()
    cache.write("kind", "made", b"so the directories exist")
    return tmp_path / "xdg" / "shiplint"


_READ = """
import sys
from shiplint import cache
print(repr(cache.read(sys.argv[1], sys.argv[2])))
"""


def _read_in_child(kind: str, name: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", _READ, kind, name],
        capture_output=True, text=True, timeout=60, check=False, cwd=REPO,
        env={**os.environ, "PYTHONPATH": str(REPO / "linter")},
    )  # fmt: skip


def test_a_fifo_at_an_entry_is_a_miss_without_waiting(user_cache: Path) -> None:
    os.mkfifo(user_cache / "kind" / "fifo")
    done = _read_in_child("kind", "fifo")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "None"


@pytest.mark.parametrize("target", ["/dev/zero", "/etc/passwd"])
def test_a_link_at_an_entry_is_not_followed(user_cache: Path, target: str) -> None:
    (user_cache / "kind" / "link").symlink_to(target)
    done = _read_in_child("kind", "link")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "None"


def test_an_entry_past_the_size_bound_is_not_read(user_cache: Path) -> None:
    big = user_cache / "kind" / "big"
    with big.open("wb") as stream:
        stream.write(b"shiplint-cache 2\n")
        stream.truncate(cache.MAX_ENTRY + 1)  # sparse: no disk used
    assert cache.read("kind", "big") is None


def test_a_kind_directory_that_is_a_link_is_not_written_through(
    user_cache: Path, tmp_path: Path
) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (user_cache / "linked").symlink_to(elsewhere)
    cache.write("linked", "entry", b"payload")
    assert list(elsewhere.iterdir()) == []
    assert cache.read("linked", "entry") is None


def test_a_dangling_prune_stamp_link_is_not_written_through(
    user_cache: Path, tmp_path: Path
) -> None:
    target = tmp_path / "created-through-the-link"
    stamp = user_cache / ".pruned"
    stamp.unlink()
    stamp.symlink_to(target)
    cache.write("kind", "another", b"payload")  # the first write of the day prunes
    assert not target.exists()
    assert cache.read("kind", "another") == b"payload"


def test_a_key_file_that_is_a_link_is_not_used(user_cache: Path, tmp_path: Path) -> None:
    planted = tmp_path / "planted-key"
    planted.write_bytes(b"k" * 32)
    planted.chmod(0o600)
    (user_cache / ".key").unlink()
    (user_cache / ".key").symlink_to(planted)
    # A new process: this one knows the key it made already.
    done = _read_in_child("kind", "made")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "None"


@pytest.mark.parametrize("what", ["directory", "key"])
def test_a_cache_writable_by_others_is_not_used_and_said_once(
    user_cache: Path, capfd: pytest.CaptureFixture[str], what: str
) -> None:
    assert cache.read("kind", "made") == b"so the directories exist"
    if what == "directory":
        user_cache.chmod(0o777)
        assert cache.read("kind", "made") is None
        cache.write("kind", "new", b"payload")
        assert cache.read("kind", "new") is None
        said = capfd.readouterr().err
        assert said.count("not using the cache") == 1
        assert "writable by others" in said
        assert cache.usable() is not None
    else:
        (user_cache / ".key").chmod(0o644)
    done = _read_in_child("kind", "made")  # a new process, which reads the key
    assert done.returncode == 0 and done.stdout.strip() == "None", done.stderr
    user_cache.chmod(0o700)
    (user_cache / ".key").chmod(0o600)
    assert cache.read("kind", "made") == b"so the directories exist"
    done = _read_in_child("kind", "made")
    assert done.stdout.strip() == repr(b"so the directories exist")


@pytest.mark.skipif(not ROOT, reason="only root can give a directory to another user")
def test_a_cache_owned_by_another_user_is_not_used(
    user_cache: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    os.chown(user_cache, 65534, 65534)
    try:
        assert cache.read("kind", "made") is None
        assert "owned by uid 65534" in capfd.readouterr().err
    finally:
        os.chown(user_cache, 0, 0)
    assert cache.read("kind", "made") == b"so the directories exist"


def test_names_are_never_paths() -> None:
    for kind, name in [("..", "x"), ("kind", "../x"), ("kind", "/etc/passwd"), ("a/b", "x")]:
        with pytest.raises(ValueError):
            cache.read(kind, name)
        with pytest.raises(ValueError):
            cache.write(kind, name, b"")


@pytest.mark.skipif(not ROOT, reason="only root can give a link to another user")
def test_a_cache_directory_linked_by_another_user_is_not_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    mine = tmp_path / "mine"
    mine.mkdir(mode=0o700)
    shared = tmp_path / "shared"
    shared.mkdir()
    (shared / "shiplint").symlink_to(mine)
    monkeypatch.setenv("XDG_CACHE_HOME", str(shared))
    cache.write("kind", "entry", b"payload")
    assert cache.read("kind", "entry") == b"payload"  # the user's own link: followed
    os.lchown(shared / "shiplint", 65534, 65534)
    assert cache.read("kind", "entry") is None
    assert "a link owned by uid 65534" in capfd.readouterr().err


def test_a_file_system_without_hard_links_still_gets_a_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "no-links"))

    def refused(*args: object, **kwargs: object) -> None:
        raise PermissionError(1, "Operation not permitted")

    monkeypatch.setattr(os, "link", refused)
    cache.write("kind", "entry", b"payload")
    root = tmp_path / "no-links" / "shiplint"
    assert sorted(p.name for p in root.iterdir() if p.name.startswith(".k")) == [".key"]
    assert (root / ".key").stat().st_mode & 0o777 == 0o600
    done = _read_in_child("kind", "entry")  # a new process reads the key from the file
    assert done.stdout.strip() == repr(b"payload"), done.stderr
