"""Build declarations: setup.py read with ast, scikit-build-core's table, CMake presets, ALL."""

from __future__ import annotations

from pathlib import Path

from shiplint.diagnostics import Location
from shiplint.manifest.model import BuildDeclaration
from shiplint.sources.declarations import read_build_plan
from shiplint.sources.model import BuildPlan

MARK = Location("shiplint.yaml", 7, 5)


def plan(tmp_path: Path, kind: str, rel: str | None, text: str | None) -> BuildPlan:
    if rel is not None and text is not None:
        (tmp_path / rel).write_text(text, encoding="utf-8")
    return read_build_plan(tmp_path, (BuildDeclaration(kind, rel, MARK),))


def requested(p: BuildPlan) -> list[tuple[str, str, tuple[str, ...]]]:
    return [(r.name, r.location.render(), r.conditions) for r in p.requests]


def test_setup_py_lists_built_up_across_statements(tmp_path: Path) -> None:
    p = plan(
        tmp_path,
        "setup-py",
        "setup.py",
        "import os\n"
        "class Build:\n"
        "    def run(self):\n"
        '        args = ["--config", "Release", "--target", "a"]\n'
        "        if os.environ.get('B'):\n"
        '            args += ["--target", "b", "c", "-j4"]\n'
        "        else:\n"
        '            args.append("--target")\n'
        '            args.append("d")\n'
        '        args.extend(["--target=e"])\n'
        '        self.spawn(["cmake", "--build", ".", "--target", "f", *args])\n',
    )
    assert requested(p) == [
        ("a", "setup.py:4:52", ()),
        ("b", "setup.py:6:34", ("os.environ.get('B')",)),
        ("c", "setup.py:6:39", ("os.environ.get('B')",)),
        ("d", "setup.py:9:25", ("not (os.environ.get('B'))",)),
        ("e", "setup.py:10:22", ()),
        ("f", "setup.py:11:58", ()),
    ]
    assert p.builds_all == () and p.unreadable == ()


def test_setup_py_non_literal_target_is_unreadable_not_guessed(tmp_path: Path) -> None:
    p = plan(
        tmp_path,
        "setup-py",
        "setup.py",
        'name = "x"\nargs = ["--target", f"lib_{name}"]\nargs += ["--target", name]\n'
        'if False:\n    args += ["--target", "never"]\n',
    )
    assert p.requests == ()
    assert [(u.location.render(), u.reason) for u in p.unreadable] == [
        (
            "setup.py:2:21",
            "`--target` is followed by `f'lib_{name}'`, not a literal target name; the target "
            "it builds cannot be read from the source",
        ),
        (
            "setup.py:3:22",
            "`--target` is followed by `name`, not a literal target name; the target it builds "
            "cannot be read from the source",
        ),
    ]


def test_setup_py_without_target_builds_all_and_all_target_counts(tmp_path: Path) -> None:
    assert plan(tmp_path, "setup-py", "setup.py", "args = ['--build', '.']\n").builds_all[
        0
    ].render() == ("setup.py")
    p = plan(tmp_path, "setup-py", "setup.py", "args = ['--target', 'install']\n")
    assert (p.requests, [b.render() for b in p.builds_all]) == ((), ["setup.py:1:21"])


def test_setup_py_syntax_error_is_located(tmp_path: Path) -> None:
    p = plan(tmp_path, "setup-py", "setup.py", "args = [\n")
    assert [(u.location.path, u.location.line) for u in p.unreadable] == [("setup.py", 1)]
    assert p.unreadable[0].reason.startswith("Python syntax error")


def test_missing_declaration_file_points_at_the_manifest(tmp_path: Path) -> None:
    p = plan(tmp_path, "setup-py", "setup.py", None)
    assert [(u.location.render(), u.reason) for u in p.unreadable] == [
        (
            "shiplint.yaml:7:5",
            "build declaration setup-py names setup.py: No such file or directory",
        )
    ]


def test_presets_with_inheritance_hidden_and_all(tmp_path: Path) -> None:
    p = plan(
        tmp_path,
        "cmake-presets",
        "CMakePresets.json",
        '{"version": 6, "buildPresets": [\n'
        ' {"name": "base", "hidden": true, "targets": ["x", "y"]},\n'
        ' {"name": "child", "inherits": "base"},\n'
        ' {"name": "one", "targets": "z"},\n'
        ' {"name": "everything"},\n'
        ' {"name": "inst", "targets": ["install"]}\n'
        "]}\n",
    )
    assert requested(p) == [
        ("x", "CMakePresets.json:2:47", ("preset child",)),
        ("y", "CMakePresets.json:2:52", ("preset child",)),
        ("z", "CMakePresets.json:4:29", ("preset one",)),
    ]
    assert [b.render() for b in p.builds_all] == [
        "CMakePresets.json:5:11",
        "CMakePresets.json:6:31",
    ]


def test_presets_json_error_is_located(tmp_path: Path) -> None:
    p = plan(tmp_path, "cmake-presets", "CMakePresets.json", '{"buildPresets": [\n  {"name": }\n')
    assert [u.location.render() for u in p.unreadable] == ["CMakePresets.json:2:12"]


def test_scikit_build_targets_and_default(tmp_path: Path) -> None:
    p = plan(
        tmp_path,
        "scikit-build",
        "pyproject.toml",
        '[project]\nname = "x"\n\n[tool.scikit-build]\nbuild.targets = ["a", "b"]\n',
    )
    assert requested(p) == [("a", "pyproject.toml:5:18", ()), ("b", "pyproject.toml:5:23", ())]
    p = plan(
        tmp_path, "scikit-build", "pyproject.toml", '[tool.scikit-build]\nwheel.py-api = "cp3"\n'
    )
    assert (p.requests, len(p.builds_all)) == ((), 1)
    p = plan(tmp_path, "scikit-build", "pyproject.toml", "[tool.scikit-build]\nbuild.targets = 3\n")
    assert [u.reason for u in p.unreadable] == ["build.targets is not a list of strings"]
    p = plan(tmp_path, "scikit-build", "pyproject.toml", "[tool\n")
    assert p.unreadable[0].reason.startswith("TOML error")


def test_all_declaration(tmp_path: Path) -> None:
    p = read_build_plan(tmp_path, (BuildDeclaration("all", None, MARK),))
    assert [b.render() for b in p.builds_all] == ["shiplint.yaml:7:5"]
