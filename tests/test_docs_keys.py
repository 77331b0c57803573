"""What the docs and hints tell a user to write exists, and the defaults they state are
the code's.

A hint or a rule page that names a manifest key the schema does not have sends the user
to edit something that cannot be written; a documented default that differs from the
code's makes a run behave unlike its documentation. The manifest keys are found where
the prose names them: dotted paths from a top-level key (`libraries[].build.target`,
`sources.cmake_roots`), a key after a possessive (the library's `build.target`) and a
key "in the manifest"; each is resolved in schemas/manifest.schema.json.
"""

from __future__ import annotations

import ast
import json
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.material import REPO

if sys.version_info >= (3, 11):
    import tomllib
else:
    import tomli as tomllib

SCHEMA: dict[str, Any] = json.loads(
    (REPO / "schemas" / "manifest.schema.json").read_text(encoding="utf-8")
)
TOP = [k for k in SCHEMA["properties"] if k != "$schema"]

# A dotted path from a top-level key; not part of a file name, a path or a call.
DOTTED = re.compile(
    rf"(?<![\w./$-])(?:{'|'.join(TOP)})(?:(?:\[\])?\.(?:<platform>|[a-z_]+))+(?![\w(]|\.\w)"
)
# "the library's `build.target`", "build_target in the manifest".
POSSESSIVE = re.compile(
    r"(?:library|component|aggregate|route|waiver|registry)'s\s+`([a-z_.\[\]<>]+)`"
)
IN_MANIFEST = re.compile(r"`?\b([a-z]+(?:_[a-z]+)+|[a-z_]+\.[a-z_.]+)`?\s+in the manifest")


def _nodes(node: Any) -> Iterator[dict[str, Any]]:
    """Every schema object that can hold properties."""
    if isinstance(node, dict):
        yield node
        for value in node.values():
            yield from _nodes(value)
    elif isinstance(node, list):
        for value in node:
            yield from _nodes(value)


def _follow(node: dict[str, Any]) -> list[dict[str, Any]]:
    """The node and what it stands for: a $ref, and each branch of a combination."""
    out = [node]
    ref = node.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/"):
        out += _follow(SCHEMA["$defs"][ref.removeprefix("#/$defs/")])
    for key in ("allOf", "anyOf", "oneOf"):
        for branch in node.get(key, ()):
            out += _follow(branch)
    for key in ("then", "else"):
        if isinstance(node.get(key), dict):
            out += _follow(node[key])
    return out


def _step(nodes: list[dict[str, Any]], segment: str) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    for node in (n for start in nodes for n in _follow(start)):
        if segment == "[]":
            if isinstance(node.get("items"), dict):
                found += _follow(node["items"])
        elif segment == "<platform>":
            for key in ("patternProperties",):
                found += [n for v in node.get(key, {}).values() for n in _follow(v)]
            if isinstance(node.get("additionalProperties"), dict):
                found += _follow(node["additionalProperties"])
        elif segment in node.get("properties", {}):
            found += _follow(node["properties"][segment])
    return found


def _segments(path: str) -> list[str]:
    return [s for part in path.split(".") for s in re.split(r"(\[\])", part) if s]


def resolves(path: str, anywhere: bool) -> bool:
    """The path exists from the manifest's top, or (a key named on its own) from any
    object of the schema."""
    starts = list(_nodes(SCHEMA)) if anywhere else [SCHEMA]
    nodes = starts
    for segment in _segments(path):
        nodes = _step(nodes, segment)
        if not nodes:
            return False
    return True


def _strings_of(path: Path) -> Iterator[str]:
    """What a module tells users: hints, messages, and init's notes written into the
    manifest it drafts."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    everything = path.parent.name == "init"
    docstrings = {
        id(node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
    }
    for node in ast.walk(tree):
        if id(node) in docstrings:
            continue
        if everything and isinstance(node, ast.Constant) and isinstance(node.value, str):
            yield node.value
        if isinstance(node, ast.keyword) and node.arg in ("hint", "message"):
            for inner in ast.walk(node.value):
                if isinstance(inner, ast.Constant) and isinstance(inner.value, str):
                    yield inner.value


def _texts() -> Iterator[tuple[str, str]]:
    for path in sorted((REPO / "rules").glob("*.yaml")):
        yield path.name, path.read_text(encoding="utf-8")
    for path in [REPO / "README.md", *sorted((REPO / "docs").rglob("*.md"))]:
        yield str(path.relative_to(REPO)), path.read_text(encoding="utf-8")
    for path in sorted((REPO / "linter" / "shiplint").rglob("*.py")):
        joined = "\n".join(_strings_of(path))
        if joined:
            yield str(path.relative_to(REPO)), joined


# A dotted name ending in one of these is a file (`externals.py`, `sources.md`).
FILE_SUFFIXES = {"py", "md", "yaml", "json", "cmake", "txt", "in", "toml"}


def dotted(text: str) -> list[str]:
    return [
        m.group(0)
        for m in DOTTED.finditer(text)
        if m.group(0).rsplit(".", 1)[-1] not in FILE_SUFFIXES
    ]


def named_keys() -> list[tuple[str, str, bool]]:
    """(where, key, named on its own) for every manifest key the texts name."""
    out: set[tuple[str, str, bool]] = set()
    for where, text in _texts():
        out.update((where, key, False) for key in dotted(text))
        out.update((where, m.group(1), True) for m in POSSESSIVE.finditer(text))
        out.update((where, m.group(1), True) for m in IN_MANIFEST.finditer(text))
    return sorted(out)


def test_every_manifest_key_the_docs_and_hints_name_exists_in_the_schema() -> None:
    keys = named_keys()
    # The patterns find what they are for (the docs name dozens of keys).
    assert len({k for _, k, _ in keys}) > 80
    missing = [f"{where}: {key}" for where, key, alone in keys if not resolves(key, alone)]
    assert missing == []


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("or correct build_target in the manifest;", "build_target"),
        ("correct the library's `build_target`.", "build_target"),
        ("check `sources.cmake_roots` first", "sources.cmake_roots"),
        ("set `libraries[].build.targets`", "libraries[].build.targets"),
    ],
)
def test_a_key_the_schema_lacks_is_caught(text: str, found: str) -> None:
    named = [
        *dotted(text),
        *(m.group(1) for m in POSSESSIVE.finditer(text)),
        *(m.group(1) for m in IN_MANIFEST.finditer(text)),
    ]
    assert named == [found]
    assert resolves(found, anywhere=True) == (found == "sources.cmake_roots")


def test_paths_and_calls_are_not_keys() -> None:
    text = "`share/cmake/executorch-config.cmake`, cmake.route_for(version), sources.md"
    assert not dotted(text)


# Documented defaults against the code's.


def _table(text: str, heading: str) -> dict[str, str]:
    """The `| key | default | ... |` rows of the table under a heading."""
    section = text.split(heading, 1)[1]
    rows: dict[str, str] = {}
    for line in section.splitlines():
        match = re.match(r"\|\s*`([^`]+)`\s*\|\s*([^|]*)\|", line)
        if match:
            rows[match.group(1)] = match.group(2).strip()
        elif rows and not line.startswith("|"):
            break
    return rows


def test_tool_shiplint_defaults_in_the_docs_are_the_codes() -> None:
    from shiplint.config import Config
    from shiplint.request import BUILD_TIMEOUT, EVALUATION_TIMEOUT

    text = (REPO / "docs" / "manifest.md").read_text(encoding="utf-8")
    rows = _table(text, "| key | default | meaning |")
    config = Config()
    assert config.fail_on is not None
    assert rows["fail-on"] == f"`{config.fail_on.value}`"
    assert rows["link-probe"] == f"`{str(config.link_probe).lower()}`"
    assert rows["header-probe"] == f"`{str(config.header_probe).lower()}`"
    assert rows["cmake-timeout"] == (
        f"`{EVALUATION_TIMEOUT:g}` (`{BUILD_TIMEOUT:g}` for the link probe's builds)"
    )
    assert rows["manifest"] == "`shiplint.yaml`"


def test_the_readmes_tool_shiplint_example_states_the_codes_defaults() -> None:
    from shiplint.request import BUILD_TIMEOUT, EVALUATION_TIMEOUT

    readme = (REPO / "README.md").read_text(encoding="utf-8")
    block = next(b for b in readme.split("```toml")[1:] if "[tool.shiplint]" in b)
    block = block.split("```", 1)[0]
    tomllib.loads(block)
    comment = next(line for line in block.splitlines() if line.startswith("cmake-timeout"))
    assert f"default {EVALUATION_TIMEOUT:g};" in comment
    assert f"{BUILD_TIMEOUT:g} for link-probe builds" in comment


def test_the_readmes_action_table_is_the_actions_inputs() -> None:
    """Every input of action.yml has a row, and the `format` row lists every format
    the Action's check accepts."""
    import yaml
    from shiplint.report import FORMATS

    action = yaml.safe_load((REPO / "action.yml").read_text(encoding="utf-8"))
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    rows = _table(readme, "| input | default | meaning |")
    assert set(rows) == set(action["inputs"])
    line = next(x for x in readme.splitlines() if x.startswith("| `format` |"))
    listed = re.findall(r"`([a-z]+)`", line.split("|")[3])
    assert listed == list(FORMATS)
    assert all(f in action["inputs"]["format"]["description"] for f in FORMATS)
