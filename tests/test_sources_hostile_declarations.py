"""Build declarations that are hostile input: special files, links out of the tree, chains
and nesting past what the readers recurse through, wrong types. Each ends in a located
SL207 reason (an Unreadable), never an exception, and never in a read that blocks."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from shiplint.diagnostics import Location
from shiplint.manifest.model import BuildDeclaration
from shiplint.sources.declarations import read_build_plan
from shiplint.sources.model import BuildPlan

MARK = Location("shiplint.yaml", 7, 5)


def _plan(root: Path, kind: str, rel: str) -> BuildPlan:
    return read_build_plan(root, (BuildDeclaration(kind, rel, MARK),))


def _reasons(p: BuildPlan) -> list[tuple[str, str]]:
    return [(u.location.render(), u.reason) for u in p.unreadable]


@pytest.mark.parametrize(("kind", "rel"), [("setup-py", "setup.py"),
                                           ("cmake-presets", "CMakePresets.json"),
                                           ("scikit-build", "pyproject.toml")])  # fmt: skip
def test_a_fifo_declaration_is_refused_without_waiting(tmp_path: Path, kind: str, rel: str) -> None:
    os.mkfifo(tmp_path / rel)
    assert _reasons(_plan(tmp_path, kind, rel)) == [
        ("shiplint.yaml:7:5", f"build declaration {kind} names {rel}: not a regular file")
    ]


@pytest.mark.parametrize("target", ["/dev/zero", "/proc/self/environ", "/etc/passwd"])
def test_a_declaration_linked_out_of_the_tree_is_not_read(tmp_path: Path, target: str) -> None:
    os.symlink(target, tmp_path / "setup.py")
    ((where, reason),) = _reasons(_plan(tmp_path, "setup-py", "setup.py"))
    assert where == "shiplint.yaml:7:5"
    assert reason.startswith("setup.py lies outside the checked tree")


def test_a_declaration_linked_inside_the_tree_is_read(tmp_path: Path) -> None:
    (tmp_path / "build.py").write_text("args = ['--target', 'acme']\n")
    os.symlink("build.py", tmp_path / "setup.py")
    p = _plan(tmp_path, "setup-py", "setup.py")
    assert [r.name for r in p.requests] == ["acme"] and p.unreadable == ()


def test_a_5000_long_inherits_chain_resolves_to_its_end(tmp_path: Path) -> None:
    presets = [{"name": f"p{i}", "inherits": [f"p{i + 1}"]} for i in range(5000)]
    presets.append({"name": "p5000", "targets": ["acme"]})
    (tmp_path / "CMakePresets.json").write_text(json.dumps({"buildPresets": presets}))
    p = _plan(tmp_path, "cmake-presets", "CMakePresets.json")
    assert p.unreadable == ()
    assert len(p.requests) == 5001 and {r.name for r in p.requests} == {"acme"}


def test_inherits_of_the_wrong_type_add_nothing(tmp_path: Path) -> None:
    presets = [
        {"name": "base", "targets": ["acme"]},
        {"name": "number", "inherits": 5},
        {"name": "nested", "inherits": [["base"]]},
        {"name": "table", "inherits": {"base": 1}},
        {"name": "fine", "inherits": [7, "base"]},
        {"name": "a", "inherits": "b"},
        {"name": "b", "inherits": ["a"]},
    ]
    (tmp_path / "CMakePresets.json").write_text(json.dumps({"buildPresets": presets}))
    p = _plan(tmp_path, "cmake-presets", "CMakePresets.json")
    assert sorted((r.name, r.conditions) for r in p.requests) == [
        ("acme", ("preset base",)),
        ("acme", ("preset fine",)),
    ]
    # Presets that state no targets, own or inherited, build ALL (number, nested, table, a, b).
    assert len(p.builds_all) == 5


@pytest.mark.parametrize("text", ["[" * 100_000 + "]" * 100_000,
                                  '{"buildPresets": ' + "[" * 5000 + "]" * 5000 + "}"])  # fmt: skip
def test_presets_nested_past_the_json_reader_are_unreadable(tmp_path: Path, text: str) -> None:
    (tmp_path / "CMakePresets.json").write_text(text)
    assert _reasons(_plan(tmp_path, "cmake-presets", "CMakePresets.json")) == [
        ("CMakePresets.json", "JSON nested too deeply to read")
    ]


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("tool = 5\n", None),
        ("[tool]\nscikit-build = 5\n", None),
        ("[tool]\nscikit-build = " + "[" * 5000 + "]" * 5000 + "\n",
         "TOML nested too deeply to read"),
    ],
)  # fmt: skip
def test_a_scikit_build_table_of_the_wrong_shape(
    tmp_path: Path, text: str, reason: str | None
) -> None:
    (tmp_path / "pyproject.toml").write_text(text)
    p = _plan(tmp_path, "scikit-build", "pyproject.toml")
    if reason is None:
        # No build.targets: scikit-build-core builds the default target.
        assert p.unreadable == () and len(p.builds_all) == 1
    else:
        assert _reasons(p) == [("pyproject.toml", reason)]


@pytest.mark.parametrize("terms", [400, 900])
def test_a_target_of_hundreds_of_operators_is_said_not_unparsed(tmp_path: Path, terms: int) -> None:
    expression = " + ".join(["'acme'"] * terms)
    (tmp_path / "setup.py").write_text(f"cmd = ['--target', {expression}]\n")
    ((where, reason),) = _reasons(_plan(tmp_path, "setup-py", "setup.py"))
    assert where == "setup.py:1:20"
    assert "nested too deeply to quote (line 1)" in reason and "not a literal target" in reason
