"""Shared pytest configuration. Test helpers import as `tests.<module>` (tests/ is a package)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def _plain_text_reports(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """A FORCE_COLOR or NO_COLOR in the caller's environment must not change what tests read;
    the colour tests set them themselves."""
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    monkeypatch.delenv("NO_COLOR", raising=False)
    yield


@pytest.fixture(scope="session")
def _user_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("user-cache")


@pytest.fixture(autouse=True)
def _private_user_cache(monkeypatch: pytest.MonkeyPatch, _user_cache: Path) -> None:
    """Runs remember validated manifests and parsed CMake files in the user cache: tests
    (and the processes they start) use one of their own, never the caller's."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(_user_cache))


@pytest.fixture(params=["zlib", "zlib-ng"])
def inflater(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """The module that inflates the zip members read outside zipfile
    (`shiplint.artifacts.zip_inflate`), one test run each: both must read the same bytes.
    zlib-ng is skipped where it is not installed (it ships no wheel there)."""
    import zlib

    from shiplint.artifacts import zip_inflate

    module = zlib if request.param == "zlib" else pytest.importorskip("zlib_ng.zlib_ng")
    monkeypatch.setattr(zip_inflate, "inflater", lambda: module)
    return str(request.param)


@pytest.fixture
def fresh_user_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A user cache of the test's own, with a key of its own (forgotten before and after):
    nothing kept by another test is found. The cache's directory."""
    from shiplint import cache

    home = tmp_path / "xdg"
    monkeypatch.setenv("XDG_CACHE_HOME", str(home))
    monkeypatch.delenv("SHIPLINT_NO_CACHE", raising=False)
    cache.forget_secret()
    yield home / "shiplint"
    cache.forget_secret()
