"""Documents read before (the manifest, rule documents, pyproject.toml's [tool.shiplint])
come back from the user cache exactly as the parser made them, and a run that finds
them there imports no YAML or TOML parser."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from shiplint import cache, catalogue, config
from shiplint.manifest import yamldoc
from shiplint.manifest.errors import InputError
from shiplint.resources import data_dir

REPO = Path(__file__).resolve().parent.parent
EXAMPLES = sorted((REPO / "examples").glob("*/shiplint.yaml"))

# Every scalar kind a manifest may hold, a timestamp kept as text, anchors, nesting.
_EVERY_FORM = """version: 1
text: plain
quoted: "a: b"
number: 12
big: 123456789012345678901234567890
ratio: 0.5
yes_no: true
nothing: null
when: 2001-12-14
base: &base {a: [1, 2, {b: c}]}
copy: *base
"""


def _parsed(text: str) -> yamldoc.Document:
    return yamldoc.parse_yaml(text, "m.yaml")


@pytest.mark.parametrize("text", [_EVERY_FORM, *(p.read_text("utf-8") for p in EXAMPLES)])
def test_a_cached_document_is_the_parse(text: str) -> None:
    parsed = yamldoc._parse(text, "m.yaml")
    for _ in range(2):  # stored, then read back
        again = _parsed(text)
        assert (again.file, again.data, again.marks, again.key_marks) == (
            parsed.file, parsed.data, parsed.marks, parsed.key_marks,
        )  # fmt: skip
        assert again.data is not parsed.data


def test_the_label_is_the_callers_not_the_cached_one() -> None:
    _parsed(_EVERY_FORM)
    assert yamldoc.parse_yaml(_EVERY_FORM, "other.yaml").file == "other.yaml"


def test_a_document_with_problems_is_reported_every_time() -> None:
    for _ in range(2):
        with pytest.raises(InputError, match="duplicate key"):
            _parsed("a: 1\na: 2\n")


@pytest.mark.parametrize("payload", [b"not marshal", b"\xe9\x02", b"\xe9\x00\x00\x00\x00"])
def test_an_entry_that_does_not_decode_is_parsed_again(payload: bytes) -> None:
    name = yamldoc._DOCUMENTS.key(_EVERY_FORM.encode())
    cache.write(yamldoc._DOCUMENTS.kind, name, payload)
    assert _parsed(_EVERY_FORM).data == yamldoc._parse(_EVERY_FORM, "m.yaml").data


def test_a_rule_document_read_from_the_cache_is_the_document() -> None:
    import yaml

    for path in sorted(data_dir("rules").glob("SL*.yaml"))[:10]:
        content = path.read_bytes()
        expected = yaml.safe_load(content)
        assert catalogue._load(content) == expected  # stored
        assert catalogue._load(content) == expected  # read back


_CHILD = """
import sys
from pathlib import Path
from shiplint.catalogue import rule_doc
from shiplint.manifest.load import load_manifest
manifest = load_manifest(Path(sys.argv[1]))
print(manifest.name, rule_doc("SL201").slug, "yaml" in sys.modules)
"""


def test_a_second_run_imports_no_yaml_parser(tmp_path: Path) -> None:
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path)}
    seen = [
        subprocess.run(
            [sys.executable, "-c", _CHILD, str(EXAMPLES[0])], env=env, cwd=REPO,
            capture_output=True, text=True, timeout=60, check=True,
        ).stdout.split()
        for _ in range(2)
    ]  # fmt: skip
    name, slug = seen[0][:2]
    assert seen == [[name, slug, "True"], [name, slug, "False"]]


_PYPROJECT = """[project]
name = "demo"

[tool.shiplint]
manifest = "shiplint.yaml"
select = ["SL2"]
cmake-timeout = 30
"""


def test_a_cached_config_table_is_the_table(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(_PYPROJECT, encoding="utf-8")
    (tmp_path / "shiplint.yaml").write_text("version: 1\n", encoding="utf-8")
    expected = config._parsed_table(_PYPROJECT, "p")
    assert expected is not None and expected["select"] == ["SL2"]
    assert [config._table(_PYPROJECT, "p") for _ in range(2)] == [expected, expected]
    assert config.load_config(tmp_path).select == ("SL2",)


@pytest.mark.parametrize(
    ("text", "message"),
    [("[tool.shiplint\n", "invalid TOML"), ("tool = 1\n", "tool is not a table")],
)
def test_a_pyproject_with_problems_is_reported_every_time(
    tmp_path: Path, text: str, message: str
) -> None:
    (tmp_path / "pyproject.toml").write_text(text, encoding="utf-8")
    for _ in range(2):
        with pytest.raises(InputError) as raised:
            config.load_config(tmp_path)
        assert message in raised.value.problems[0].message


def test_a_pyproject_edit_is_read_again(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(_PYPROJECT, encoding="utf-8")
    (tmp_path / "shiplint.yaml").write_text("version: 1\n", encoding="utf-8")
    assert config.load_config(tmp_path).select == ("SL2",)
    (tmp_path / "pyproject.toml").write_text(_PYPROJECT.replace("SL2", "SL3"), encoding="utf-8")
    assert config.load_config(tmp_path).select == ("SL3",)
