"""An entry of another form under a kind's name is a miss: the answer is computed again,
the same as with no entry, and nothing crashes.

Each entry here is written with the user's own key (so the cache's authentication lets
it through) but is not what the kind's code keeps: an older format's bytes, another
kind's answer, a field of the wrong type, a truncated payload. What decides is then the
kind's own decoding (shiplint.memo). The CMake evaluations' case is in
test_cmake_eval_replay (it needs a real CMake run); forged entries, in
test_cache_forgery."""

from __future__ import annotations

import marshal
import shutil
from pathlib import Path

import pytest
from shiplint import cache, validity
from shiplint.cmake_eval import launch_cache, run
from shiplint.include_closure.model import IncludeClosure
from shiplint.manifest.errors import ManifestError
from shiplint.manifest.load import load_manifest

from tests.test_cmake_binary_version_cache import _asked, _compiled
from tests.test_include_closure import _closure_of

REPO = Path(__file__).resolve().parent.parent
EXAMPLE = REPO / "examples" / "executorch" / "shiplint.yaml"

# Payloads no kind of these keeps: each kind's own foreign forms are added below.
_ANY = [
    pytest.param(b"", id="empty"),
    pytest.param(b"\xff\x00garbage", id="not-marshal"),
    pytest.param(marshal.dumps(None), id="none"),
    pytest.param(marshal.dumps({"setpriv": True}), id="a-dict"),
    pytest.param(marshal.dumps((1, 2, 3, 4, 5, 6, 7))[:-2], id="truncated"),
]


# A user cache and a key of this module's tests' own.
pytestmark = pytest.mark.usefixtures("fresh_user_cache")


def _only_entry(kind: str) -> str:
    (entry,) = [p.name for p in (cache.cache_dir() / kind).iterdir()]
    return entry


# ------------------------------------------------------------------ validated


@pytest.mark.parametrize(
    "payload",
    [*_ANY, pytest.param(b"valid", id="older-format"), pytest.param(marshal.dumps(1), id="one")],
)
def test_a_foreign_schema_verdict_validates_again(tmp_path: Path, payload: bytes) -> None:
    broken = tmp_path / "shiplint.yaml"
    broken.write_text(EXAMPLE.read_text(encoding="utf-8").replace("name: executorch", "name: 7", 1))
    with pytest.raises(ManifestError) as fresh:
        load_manifest(broken)
    cache.write("validated", validity._name(broken.read_bytes(), "manifest.schema.json"), payload)
    with pytest.raises(ManifestError) as again:
        load_manifest(broken)
    assert again.value.problems == fresh.value.problems
    # A valid manifest under a foreign verdict: validated again, and remembered anew.
    name = validity._name(EXAMPLE.read_bytes(), "manifest.schema.json")
    cache.write("validated", name, payload)
    assert not validity.known_valid(EXAMPLE.read_bytes(), "manifest.schema.json")
    assert load_manifest(EXAMPLE) == load_manifest(EXAMPLE)
    assert cache.read("validated", name) == marshal.dumps(True)


# ------------------------------------------------------------------ cmake-version


@pytest.mark.parametrize(
    "payload",
    [
        *_ANY,
        pytest.param(b"3.24.3", id="older-format"),
        pytest.param(marshal.dumps("3.24.3"), id="text"),
        pytest.param(marshal.dumps([3]), id="one-number"),
        pytest.param(marshal.dumps([3, "24", 3]), id="a-string-part"),
        pytest.param(marshal.dumps([3, -1]), id="negative"),
        pytest.param(marshal.dumps([3, 24, 3, 1]), id="four-numbers"),
    ],
)
def test_a_foreign_kept_version_asks_the_binary_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, payload: bytes
) -> None:
    binary = _compiled(tmp_path)
    assert _asked(binary, "3.24.3", monkeypatch) == "3.24.3"
    assert _asked(binary, "4.4.5", monkeypatch) == "3.24.3"  # kept
    cache.write("cmake-version", _only_entry("cmake-version"), payload)
    assert _asked(binary, "4.4.5", monkeypatch) == "4.4.5"  # asked again, and kept
    assert _asked(binary, "3.24.3", monkeypatch) == "4.4.5"


# ------------------------------------------------------------------ cmake-launch


def _launch_input() -> bytes:
    tools = {name: shutil.which(name) for name in ("setpriv", "unshare")}
    return launch_cache.entry_key(tools, run._CONFINE)


@pytest.mark.parametrize(
    "payload",
    [
        *_ANY,
        pytest.param(b'{"setpriv": true, "unshare": true, "confinement": "mounts"}', id="json"),
        pytest.param(marshal.dumps((["/bin/sh"], ["/bin/sh"], "mounts")), id="commands"),
        pytest.param(marshal.dumps((1, 1, "mounts")), id="numbers"),
        pytest.param(marshal.dumps((True, True, "none")), id="no-confinement"),
        pytest.param(marshal.dumps((True, True)), id="two-fields"),
    ],
)
def test_a_foreign_launch_verdict_tries_again(
    monkeypatch: pytest.MonkeyPatch, payload: bytes
) -> None:
    key = _launch_input()
    launch_cache.store(key, launch_cache.Launch(True, False, "landlock"))
    assert launch_cache.load(key) == launch_cache.Launch(True, False, "landlock")
    cache.write("cmake-launch", launch_cache._VERDICTS.key(key), payload)
    assert launch_cache.load(key) is None
    # A run meeting it tries, and finds what a run with no entry finds.
    monkeypatch.setattr(run, "_system", None)
    system = run._system_facts()
    assert system.tried
    trial = run._find_system(fresh=True)
    assert (system.setpriv, system.unshare, system.confinement) == (
        trial.setpriv,
        trial.unshare,
        trial.confinement,
    )


# ------------------------------------------------------------------ include-closure


@pytest.mark.parametrize(
    "payload",
    [
        *_ANY,
        pytest.param(marshal.dumps((1, {}, [])), id="older-format"),
        pytest.param(marshal.dumps(({"pkg/include/pkg/a.h": "gone.h"}, [])), id="entries-text"),
        pytest.param(
            marshal.dumps(
                ({"pkg/include/pkg/a.h": [(3, "gone.h", True, "lost", False, None)]}, [])
            ),
            id="unknown-missing",
        ),
        pytest.param(
            marshal.dumps(({"pkg/include/pkg/a.h": [("3", "gone.h", True, "not shipped")]}, [])),
            id="short-include",
        ),
        pytest.param(marshal.dumps(({"pkg/include/pkg/a.h": []}, [7])), id="required-a-number"),
    ],
)
def test_a_foreign_kept_closure_is_read_again(tmp_path: Path, payload: bytes) -> None:
    from tests.artifact_libs import pack_wheel
    from tests.builders import manifest as empty_manifest

    manifest = empty_manifest()
    wheel = pack_wheel(
        tmp_path / "pkg-1.0-cp311-cp311-manylinux_2_28_x86_64.whl",
        {
            "pkg/include/pkg/a.h": b"#pragma once\n#include <pkg/b.h>\n#include <gone.h>\n",
            "pkg/include/pkg/b.h": b"#pragma once\n#include <vector>\n",
        },
    )
    fresh = _closure_of(wheel, manifest)
    assert isinstance(fresh, IncludeClosure) and fresh.unresolved
    name = _only_entry("include-closure")
    cache.write("include-closure", name, payload)
    assert _closure_of(wheel, manifest) == fresh
    # Read again and kept anew (only a miss writes): the next run takes it.
    assert cache.read("include-closure", name) != payload
    assert _closure_of(wheel, manifest) == fresh


# ------------------------------------------------------------------ wheel-metadata

_METADATA = (
    b"Metadata-Version: 2.1\nName: pkg\nVersion: 1.0\n"
    b"Requires-Dist: torch>=2.0\nRequires-Dist: numpy; extra == 'x'\n\nThe description.\n"
)


@pytest.mark.parametrize(
    "payload",
    [
        *_ANY,
        pytest.param(marshal.dumps((["torch>=2.0"], "1.0", "pkg")), id="a-list"),
        pytest.param(marshal.dumps(((b"torch>=2.0",), "1.0", "pkg")), id="bytes-entries"),
        pytest.param(marshal.dumps(((), 1.0, "pkg")), id="a-number-version"),
        pytest.param(marshal.dumps(((), "1.0")), id="two-fields"),
    ],
)
def test_a_foreign_kept_metadata_is_parsed_again(payload: bytes) -> None:
    from shiplint.artifacts import metadata

    fresh = metadata.parse_metadata("pkg-1.0.dist-info/METADATA", _METADATA)
    assert fresh.requires_dist == ("torch>=2.0", "numpy; extra == 'x'")
    assert (fresh.name, fresh.version) == ("pkg", "1.0")
    cache.write("wheel-metadata", _only_entry("wheel-metadata"), payload)
    assert metadata.parse_metadata("pkg-1.0.dist-info/METADATA", _METADATA) == fresh
    # Kept anew, and read back as parsed.
    assert marshal.loads(cache.read("wheel-metadata", _only_entry("wheel-metadata")) or b"") == (
        fresh.requires_dist,
        "1.0",
        "pkg",
    )
    assert metadata.parse_metadata("pkg-1.0.dist-info/METADATA", _METADATA) == fresh
