"""The manifest: the example validates; every broken variant exits 2 fast with a position."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from shiplint.cli import main
from shiplint.manifest.errors import ManifestError
from shiplint.manifest.load import load_manifest
from shiplint.platforms import Platform

from tests.material import EXAMPLE_MANIFEST

EXAMPLE = EXAMPLE_MANIFEST.read_text(encoding="utf-8")


def test_example_manifest_validates(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate-manifest", str(EXAMPLE_MANIFEST)]) == 0
    assert "valid manifest for executorch" in capsys.readouterr().out


def test_example_manifest_model() -> None:
    manifest = load_manifest(EXAMPLE_MANIFEST)
    quantized = manifest.component("kernels_quantized")
    assert quantized is not None and quantized.opt_in
    owner = manifest.owner_of("kernels_quantized")
    assert owner is not None and owner.name == "executorch_kernels_quantized"
    assert owner.registers_statically
    qnn = manifest.library("executorch_backend_qnn")
    assert qnn is not None
    assert qnn.placement_for(Platform("linux", "x86_64")) is not None
    assert qnn.placement_for(Platform("linux", "aarch64")) is None
    assert (
        owner.file_pattern(Platform("macos", "aarch64")) == "libexecutorch_kernels_quantized.dylib"
    )
    (libraries,) = manifest.aggregates
    assert "kernels_quantized" not in libraries.carries.expected(manifest.components)
    assert manifest.cmake.route_for((3, 24, 3)).name == "paths"  # type: ignore[union-attr]
    assert manifest.cmake.route_for((4, 4, 5)).name == "targets"  # type: ignore[union-attr]


def _replace(old: str, new: str) -> str:
    assert old in EXAMPLE, old
    return EXAMPLE.replace(old, new, 1)


def _line_of(text: str, needle: str) -> int:
    return text[: text.index(needle)].count("\n") + 1


BROKEN: dict[str, tuple[str | bytes, str]] = {
    "wrong-type": (_replace("opt_in: true", "opt_in: maybe"), "'maybe' is not of type 'boolean'"),
    "unknown-key": (
        _replace("  - name: etdump\n", "  - name: etdump\n    optin: true\n"),
        "unknown key 'optin'",
    ),
    "aggregate-unknown-component": (
        _replace("all_except: [kernels_quantized]", "all_except: [kernels_quantised]"),
        "names unknown component 'kernels_quantised'",
    ),
    "waiver-without-reason": (
        EXAMPLE + "\nwaivers:\n  - rule: SL001\n    subject: {library: x}\n",
        "'reason' is required",
    ),
    "component-owned-twice": (
        _replace("components: [etdump]", "components: [etdump, threadpool]"),
        "component 'threadpool' is owned by two libraries",
    ),
    "header-only-component-owned": (
        _replace("  - name: etdump\n", "  - name: etdump\n    header_only: true\n"),
        "header-only component 'etdump' is owned by library 'executorch_etdump'",
    ),
    "nested-target-with-a-bad-part": (
        _replace("  - name: etdump\n", "  - name: etdump\n    target: 'executorch::-x'\n"),
        "does not match the expected form",
    ),
    "waiver-unknown-rule": (
        EXAMPLE + "\nwaivers:\n  - rule: SL999\n    reason: a reason long enough\n",
        "waiver names no known rule",
    ),
    "invalid-yaml": (_replace("version: 1\n", "version: [1\n"), "invalid YAML"),
    "empty": ("", "empty document"),
    "binary": (b"\x7fELF\x02\x01\x01\x00" + bytes(range(256)) * 4, "binary data"),
    "not-a-mapping": ("- just\n- a list\n", "the document is a list, not a mapping"),
    # What a manifest path led to (a link to /etc/passwd) is not printed back.
    "a-text-file": ("root:x:0:0:root:/root:/bin/bash\n" * 40, "the document is a string, not"),
    "long-unknown-key": ("version: 1\n? " + "k" * 5000 + "\n: 1\n", "… (5,000 characters)"),
    "alias-bomb": (
        "a: &a [x, x, x, x, x, x, x, x, x, x]\n"
        + "".join(
            f"{chr(98 + i)}: &{chr(98 + i)} [{', '.join(['*' + chr(97 + i)] * 10)}]\n"
            for i in range(7)
        ),
        "alias bomb",
    ),
    # A regular expression's `.` does not match a newline: the `..` after it passed the
    # schema, and the layout would have created files outside its directory.
    "newline-in-dir": (
        _replace("      linux: {dir: executorch/lib}\n", '      linux: {dir: "x\\n/../../.."}\n'),
        "holds a control character: not a path",
    ),
    "nul-in-config-dir": (
        _replace("    - executorch/share/cmake\n", '    - "executorch/share\\0cmake"\n'),
        "holds a control character: not a path",
    ),
    "python-tag": ("version: !!python/name:os.system\n", "YAML tag !!python/name:os.system is not"),
    "custom-tag": ("version: 1\npackage: !custom {name: x}\n", "YAML tag !custom is not allowed"),
    "binary-tag": ("version: 1\npackage: {name: !!binary aGk=}\n", "YAML tag !!binary is not"),
    # An impossible date is no date: the text stays a string, which the schema then judges.
    "bad-timestamp": ("version: 1\npackage: {name: !!timestamp 2001-13-45}\n", "'2001-13-45'"),
    # The boolean constructor looks the text up in a table: an unknown word is no boolean.
    "bad-bool": ("version: 1\npackage: {name: !!bool maybe}\n", "unreadable value: !!bool 'maybe'"),
    "recursive-alias": ("version: 1\nlibraries: &a [*a]\n", "nested deeper than 64 levels"),
    "deep-nesting": ("version: 1\npackage: " + "[" * 1000 + "]" * 1000, "nested deeper than 64"),
}


@pytest.mark.parametrize("case", sorted(BROKEN))
def test_broken_manifest_exits_2_with_position(
    case: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    content, expected = BROKEN[case]
    path = tmp_path / "shiplint.yaml"
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    assert main(["validate-manifest", str(path)]) == 2
    err = capsys.readouterr().err
    assert expected in err
    # Every message names the file and a line (and column) number.
    assert f"{path}:" in err
    first = err.splitlines()[0]
    line = first.split(f"{path}:", 1)[1].split(":", 1)[0]
    assert line.isdigit() and int(line) >= 1, first
    assert "Traceback" not in err
    assert "root:x:0" not in err


def test_error_points_at_the_offending_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = _replace("  - name: etdump\n", "  - name: etdump\n    optin: true\n")
    path = tmp_path / "m.yaml"
    path.write_text(text, encoding="utf-8")
    assert main(["validate-manifest", str(path)]) == 2
    err = capsys.readouterr().err
    assert (
        f"{path}:{_line_of(text, 'optin: true')}:5: unknown key 'optin'; did you mean 'opt_in'?"
        in err
    )
    assert "(at components[4])" in err


def test_huge_file_is_refused_before_parsing(tmp_path: Path) -> None:
    path = tmp_path / "huge.yaml"
    with path.open("wb") as stream:
        stream.write(b"# " + b"x" * (50 * 1024 * 1024) + b"\n")
    result = subprocess.run(
        [sys.executable, "-m", "shiplint", "validate-manifest", str(path)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 2
    assert f"{path}:1:1: file is 52,428,803 bytes" in result.stderr
    assert "Traceback" not in result.stderr


def test_load_manifest_collects_every_problem(tmp_path: Path) -> None:
    text = _replace("opt_in: true", "opt_in: 3").replace("kind: plugin", "kind: plug", 1)
    path = tmp_path / "m.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ManifestError) as info:
        load_manifest(path)
    messages = [p.message for p in info.value.problems]
    assert len(messages) == 2, messages


def test_library_members_on_a_platform() -> None:
    manifest = load_manifest(EXAMPLE_MANIFEST)
    names = (
        "executorch/lib/libexecutorch.so",
        "executorch/lib/libexecutorch.dylib",
        "executorch/lib/sub/libexecutorch.so",
        "executorch/extension/pybindings/_C.cpython-311-x86_64-linux-gnu.so",
        "executorch/extension/pybindings/_C.cp311-win_amd64.pyd",
    )
    runtime, extension = manifest.library("executorch"), manifest.library("_C")
    assert runtime is not None and extension is not None
    linux, windows = Platform("linux", "x86_64"), Platform("windows", "x86_64")
    assert runtime.members(linux, names) == ("executorch/lib/libexecutorch.so",)
    assert runtime.members(windows, names) == ()  # not placed on Windows
    assert extension.members(windows, names) == (names[4],)


def test_an_unknown_key_far_from_every_known_one_gets_no_guess(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Known keys are the ones of that place in the schema: `platforms` is a manifest key,
    # but not one of a component's, so nothing is suggested for a component's `platform`.
    text = _replace("  - name: etdump\n", "  - name: etdump\n    platform: linux\n")
    path = tmp_path / "m.yaml"
    path.write_text(text, encoding="utf-8")
    assert main(["validate-manifest", str(path)]) == 2
    err = capsys.readouterr().err
    assert "unknown key 'platform' (at components[4])" in err
    assert "did you mean" not in err


def _project_with_manifest(root: Path, pyproject: str | None, manifest: Path) -> None:
    manifest.parent.mkdir(parents=True, exist_ok=True)
    manifest.write_text(EXAMPLE, encoding="utf-8")
    if pyproject is not None:
        (root / "pyproject.toml").write_text(pyproject, encoding="utf-8")


def test_validate_without_a_path_reads_the_configured_manifest(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    manifest = tmp_path / "packaging" / "et.yaml"
    _project_with_manifest(tmp_path, '[tool.shiplint]\nmanifest = "packaging/et.yaml"\n', manifest)
    monkeypatch.chdir(tmp_path)
    assert main(["validate-manifest"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("packaging/et.yaml: valid manifest for executorch: ")
    # --root names the project from elsewhere.
    monkeypatch.chdir(tmp_path.parent)
    assert main(["validate-manifest", "--root", str(tmp_path)]) == 0
    assert capsys.readouterr().out.startswith(f"{manifest}: valid manifest")


def test_validate_without_a_path_defaults_to_shiplint_yaml(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _project_with_manifest(tmp_path, None, tmp_path / "shiplint.yaml")
    assert main(["validate-manifest", "--root", str(tmp_path)]) == 0
    assert "valid manifest for executorch" in capsys.readouterr().out


def test_validate_without_a_path_or_manifest_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["validate-manifest", "--root", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert f"{tmp_path / 'shiplint.yaml'}: no manifest (give PATH, or set manifest" in err
    assert main(["validate-manifest", "--root", str(tmp_path / "nowhere")]) == 2
    assert "not a directory" in capsys.readouterr().err


def test_validate_counts_read_right(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # The example has one aggregate: "1 aggregate", not "1 aggregates".
    assert main(["validate-manifest", str(EXAMPLE_MANIFEST)]) == 0
    out = capsys.readouterr().out
    assert out.rstrip().endswith("components, 1 aggregate")
    assert " libraries, " in out


def test_a_document_that_is_no_manifest_is_not_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # A manifest path that links to another file: its bytes must not land in the cache.
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    path = tmp_path / "shiplint.yaml"
    os.symlink("/etc/passwd", path)
    assert main(["validate-manifest", str(path)]) == 2
    assert "not a mapping of manifest keys" in capsys.readouterr().err
    kept = [p.read_bytes() for p in (tmp_path / "cache").rglob("*") if p.is_file()]
    assert not any(b"root:" in data for data in kept)
