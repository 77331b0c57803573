"""System-library policies: `externals.system` naming a policy allows exactly that policy's libraries.

A real library that NEEDs libatomic.so.1 is packed into wheels under different
platform tags: auditwheel's manylinux policies allow it, musllinux and a plain
`linux` tag do not.
"""

from __future__ import annotations

import importlib.util
import json
import random
from pathlib import Path

import pytest
from shiplint.artifacts.archive import open_artifact
from shiplint.artifacts.inventory import read_inventory
from shiplint.artifacts.system_policy import allowed_by, policy_names, tag_policy
from shiplint.diagnostics import Diagnostic
from shiplint.engine import Selection, lint
from shiplint.manifest.model import Externals, LibraryKind
from shiplint.registry import RULES
from shiplint.resources import data_dir

from tests.artifact_libs import built_libs, pack_wheel
from tests.builders import library, manifest

__all__ = ["built_libs"]

POLICIES = data_dir("schemas") / "system-policies"


def _sl308(tmp_path: Path, built: dict[str, Path], wheel: str, ext: Externals) -> list[str]:
    mf = manifest(libraries=(library("pkg_atomic", LibraryKind.RUNTIME),), externals=ext)
    path = pack_wheel(tmp_path / wheel, {"pkg/lib/libpkg_atomic.so": built["libpkg_atomic.so"]})
    with open_artifact(path) as tree:
        model = read_inventory(tree, mf)
    found: list[Diagnostic] = lint(RULES, mf, [model], Selection(select=("SL308",)))
    return [d.message for d in found]


GLIBC = ("libc.so.6",)


@pytest.mark.parametrize(
    ("tag", "policy", "unresolved"),
    [
        ("manylinux_2_28_x86_64", "platform-tag", []),
        ("manylinux2014_x86_64", "platform-tag", []),
        ("musllinux_1_2_x86_64", "platform-tag", ["libatomic.so.1"]),
        ("linux_x86_64", "platform-tag", ["libatomic.so.1"]),
        ("linux_x86_64", "manylinux_2_28", []),
        # A tag set claims every tag in it: only what all of them allow.
        ("manylinux_2_28_x86_64.musllinux_1_2_x86_64", "platform-tag", ["libatomic.so.1"]),
    ],
)
def test_policy_of_the_tag_decides(
    tmp_path: Path, built_libs: dict[str, Path], tag: str, policy: str, unresolved: list[str]
) -> None:
    ext = Externals(system=GLIBC, policies=(policy,))
    messages = _sl308(tmp_path, built_libs, f"pkg-1.0-cp311-cp311-{tag}.whl", ext)
    assert [m.split()[1].rstrip(",") for m in messages] == unresolved


def test_a_hand_list_without_the_library_still_fires(
    tmp_path: Path, built_libs: dict[str, Path]
) -> None:
    ext = Externals(system=GLIBC)
    (message,) = _sl308(tmp_path, built_libs, "pkg-1.0-cp311-cp311-manylinux_2_28_x86_64.whl", ext)
    assert "needs libatomic.so.1" in message


def test_a_policy_allows_nothing_on_another_os() -> None:
    assert allowed_by(("manylinux_2_28",), "win_amd64", "windows") == ()
    assert "api-ms-win-*.dll" in allowed_by(("platform-tag",), "win_amd64", "windows")
    assert allowed_by(("windows",), "manylinux_2_28_x86_64", "linux") == ()
    assert tag_policy("macosx_14_0_arm64") == "macos"
    assert tag_policy("manylinux1_x86_64") == "manylinux1"
    assert tag_policy("linux_x86_64") is None


@pytest.mark.parametrize("stem", ["manylinux", "musllinux"])
def test_shipped_policy_data_is_auditwheels(stem: str) -> None:
    # auditwheel is a test dependency: its absence fails this test, never skips it.
    spec = importlib.util.find_spec("auditwheel")
    assert spec is not None and spec.origin is not None
    installed = Path(spec.origin).parent / "policy" / f"{stem}-policy.json"
    shipped = POLICIES / f"{stem}-policy.json"
    assert json.loads(shipped.read_text()) == json.loads(installed.read_text())


def test_the_schema_names_every_policy() -> None:
    schema = json.loads((data_dir("schemas") / "manifest.schema.json").read_text())
    items = schema["properties"]["externals"]["properties"]["system"]["items"]["oneOf"]
    assert sorted(items[1]["properties"]["policy"]["enum"]) == sorted(policy_names())


def test_the_manifest_names_a_policy(tmp_path: Path) -> None:
    from shiplint.manifest.errors import ManifestError
    from shiplint.manifest.load import load_manifest

    example = Path(__file__).resolve().parent.parent / "examples" / "executorch" / "shiplint.yaml"
    assert load_manifest(example).externals.policies == ("platform-tag",)
    bad = tmp_path / "shiplint.yaml"
    bad.write_text(example.read_text().replace("policy: platform-tag", "policy: manylinux_9_9"))
    with pytest.raises(ManifestError, match="manylinux_9_9"):
        load_manifest(bad)


def test_names_match_the_globs_as_fnmatch_matches_each() -> None:
    # Literal patterns are looked up in a set, the rest tried as globs: the same answers as
    # trying every pattern with fnmatchcase, in either case, over every policy's names.
    from fnmatch import fnmatchcase

    from shiplint.artifacts.linkage import matches_any

    rng = random.Random(7)
    policy_names_ = sorted({n for p in policy_names() for n in allowed_by((p,), None, "linux")})
    pieces = ["lib", "c", "C", ".so", ".so.6", ".", "*", "?", "[a-c]", "[!x]", "-", "_", "1"]
    patterns = [*policy_names_, "ld-linux*.so.*", "libtorch*.so", "VCRUNTIME140*.DLL"]
    patterns += ["".join(rng.choice(pieces) for _ in range(rng.randint(1, 5))) for _ in range(300)]
    names = [*policy_names_, "libtorch_cpu.so", "vcruntime140_1.dll", "LIBC.SO.6"]
    names += ["".join(rng.choice(pieces) for _ in range(rng.randint(1, 5))) for _ in range(2000)]
    matched = 0
    for lower in (False, True):
        for start in range(0, len(patterns), 40):
            chunk = tuple(patterns[start : start + 40])
            for name in names:
                given = name.lower() if lower else name
                expected = any(fnmatchcase(given, p.lower() if lower else p) for p in chunk)
                assert matches_any(given, chunk, lower) is expected, (name, chunk, lower)
                matched += expected
    assert matched > 1000
