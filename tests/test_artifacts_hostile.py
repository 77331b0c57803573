"""Broken copies of the real 1.5.1 x86_64 wheel, and hostile input through the whole CLI.

Each mutation is written into tmp_path (members stored uncompressed so a copy
takes a fraction of a second); the original wheel is never touched.
"""

from __future__ import annotations

import json
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest
from shiplint.artifacts.archive import open_artifact
from shiplint.artifacts.inventory import read_inventory
from shiplint.cli import main
from shiplint.diagnostics import Diagnostic
from shiplint.engine import Selection, lint
from shiplint.manifest.load import load_manifest
from shiplint.manifest.model import Manifest
from shiplint.registry import RULES

from tests.artifact_libs import built_libs, record_name, record_text
from tests.material import EXAMPLE_MANIFEST, wheel

__all__ = ["built_libs"]

LIB = "executorch/lib/"
Mutation = Callable[[str, bytes], bytes | None]


@pytest.fixture(scope="module")
def example() -> Manifest:
    return load_manifest(EXAMPLE_MANIFEST, label="examples/executorch/shiplint.yaml")


@pytest.fixture(scope="module")
def baseline(example: Manifest) -> list[Diagnostic]:
    return _lint(example, wheel("1.5.1", "manylinux_2_28_x86_64"))


def _lint(manifest: Manifest, path: Path) -> list[Diagnostic]:
    with open_artifact(path) as tree:
        model = read_inventory(tree, manifest)
    return lint(RULES, manifest, [model], Selection(select=("SL3",)))


_MEMBERS: list[tuple[str, bytes]] = []


def _members() -> list[tuple[str, bytes]]:
    """The real wheel's members, inflated once per session."""
    if not _MEMBERS:
        with zipfile.ZipFile(wheel("1.5.1", "manylinux_2_28_x86_64")) as source:
            _MEMBERS.extend((info.filename, source.read(info)) for info in source.infolist())
    return _MEMBERS


def _mutate(tmp_path: Path, mutation: Mutation) -> Path:
    """A copy of the real wheel with `mutation(name, data)` applied (None drops the member),
    its RECORD written anew as a build that made these members would write it."""
    target = tmp_path / wheel("1.5.1", "manylinux_2_28_x86_64").name
    kept = [
        (name, changed)
        for name, data in _members()
        if (changed := mutation(name, data)) is not None
    ]
    record = record_name(target.name, (name for name, _ in kept))
    with zipfile.ZipFile(target, "w", zipfile.ZIP_STORED) as copy:
        for name, data in kept:
            copy.writestr(name, record_text(record, kept) if name == record else data)
    return target


def _new(baseline: list[Diagnostic], found: list[Diagnostic]) -> list[Diagnostic]:
    """The diagnostics the mutation added (message-level: the wheel's label is the same)."""
    before = {(d.code, d.message) for d in baseline}
    return [d for d in found if (d.code, d.message) not in before]


def test_removed_quantized_kernels_are_reported(
    tmp_path: Path, example: Manifest, baseline: list[Diagnostic]
) -> None:
    path = _mutate(
        tmp_path,
        lambda name, data: None if name == f"{LIB}libexecutorch_kernels_quantized.so" else data,
    )
    added = {d.code: d for d in _new(baseline, _lint(example, path))}
    assert set(added) == {"SL301", "SL308"}
    missing = added["SL301"]
    assert missing.subject.library == "executorch_kernels_quantized"
    assert missing.subject.component == "kernels_quantized"
    # The export plugin NEEDs the library, so its dependency now dangles too.
    assert added["SL308"].subject.library == "quantized_ops_aot_lib"
    assert "needs libexecutorch_kernels_quantized.so" in added["SL308"].message


def test_component_replaced_by_a_static_archive(
    tmp_path: Path, example: Manifest, baseline: list[Diagnostic], built_libs: dict[str, Path]
) -> None:
    archive = built_libs["libpkg_static.a"].read_bytes()
    path = _mutate(
        tmp_path,
        lambda name, data: archive if name == f"{LIB}libexecutorch_etdump.so" else data,
    )
    added = _new(baseline, _lint(example, path))
    assert [(d.code, d.subject.library, d.subject.component) for d in added] == [
        ("SL303", "executorch_etdump", "etdump")
    ]
    assert "static archive" in added[0].message


def test_component_with_a_wrong_soname(
    tmp_path: Path, example: Manifest, baseline: list[Diagnostic]
) -> None:
    def rename(name: str, data: bytes) -> bytes:
        if name != f"{LIB}libexecutorch_threadpool.so":
            return data
        # Same length, so the dynamic string table keeps its layout.
        old, new = b"\0libexecutorch_threadpool.so\0", b"\0libexecutorch_threadpoo1.so\0"
        assert data.count(old) == 1 and len(old) == len(new)
        return data.replace(old, new)

    added = _new(baseline, _lint(example, _mutate(tmp_path, rename)))
    soname = [d for d in added if d.code == "SL304"]
    assert [(d.subject.library, d.subject.component) for d in soname] == [
        ("executorch_threadpool", "threadpool")
    ]
    assert "'libexecutorch_threadpoo1.so' differs" in soname[0].message


def test_truncated_and_fake_libraries(
    tmp_path: Path, example: Manifest, baseline: list[Diagnostic]
) -> None:
    def damage(name: str, data: bytes) -> bytes:
        if name == f"{LIB}libexecutorch_etdump.so":
            return data[: len(data) // 3]
        if name == f"{LIB}libexecutorch_backend_openvino.so":
            return b"/* GNU ld script */\nINPUT(libopenvino.so)\n"
        return data

    added = _new(baseline, _lint(example, _mutate(tmp_path, damage)))
    unreadable = {d.subject.library: d.message for d in added if d.code == "SL315"}
    assert set(unreadable) == {"executorch_etdump", "executorch_backend_openvino"}
    assert "truncated" in unreadable["executorch_etdump"]
    assert "not a binary" in unreadable["executorch_backend_openvino"]


def test_hostile_members_in_a_copy_of_the_wheel(
    tmp_path: Path, example: Manifest, baseline: list[Diagnostic]
) -> None:
    path = _mutate(tmp_path, lambda name, data: data)
    with zipfile.ZipFile(path, "a") as archive:
        archive.writestr("../../outside.so", b"\x7fELF")
        archive.writestr("/etc/cron.d/evil", b"* * * * * root true")
        archive.writestr("executorch/lib/bomb.bin", bytes(16 * 1024 * 1024), zipfile.ZIP_DEFLATED)
    added = _new(baseline, _lint(example, path))
    # Each hostile member is unsafe (SL316) and, added after the build, not in RECORD (SL331).
    assert sorted(d.code for d in added) == ["SL316"] * 3 + ["SL331"] * 3
    assert not (tmp_path.parent / "outside.so").exists()


@pytest.mark.parametrize(
    ("content", "message"),
    [(b"", "empty file"), (b"<html>not a wheel</html>", "not one")],
)
def test_cli_exits_2_on_an_unopenable_wheel(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: bytes, message: str
) -> None:
    path = tmp_path / "executorch-1.5.1-cp311-cp311-manylinux_2_28_x86_64.whl"
    path.write_bytes(content)
    code = main(
        ["check", "--no-sources", "--select", "SL3", "--manifest", str(EXAMPLE_MANIFEST), str(path)]
    )
    err = capsys.readouterr().err
    assert code == 2
    assert str(path) in err and message in err
    assert "Traceback" not in err


def test_cli_reports_the_static_archive_in_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], built_libs: dict[str, Path]
) -> None:
    archive = built_libs["libpkg_static.a"].read_bytes()
    path = _mutate(
        tmp_path,
        lambda name, data: archive if name == f"{LIB}libexecutorch_kernels_quantized.so" else data,
    )
    code = main(
        [
            "check",
            "--no-sources",
            "--select",
            "SL3",
            "--format",
            "json",
            "--manifest",
            str(EXAMPLE_MANIFEST),
            str(path),
        ]
    )
    assert code == 1
    report = json.loads(capsys.readouterr().out)
    diagnostics = report["diagnostics"] if isinstance(report, dict) else report
    (sl303,) = [d for d in diagnostics if d["code"] == "SL303"]
    assert sl303["subject"]["library"] == "executorch_kernels_quantized"
    assert sl303["subject"]["component"] == "kernels_quantized"
