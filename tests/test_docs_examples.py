"""Every YAML and TOML example in README.md and docs/ loads, with the meaning its text shows.

A reader copies these blocks. In YAML, ` #` after a plain value starts a comment,
so `reason: ... (tracked in #123).` silently loses `#123).` and everything after
it. An inline comment is therefore only accepted in the unmistakable form
`value  # text` (at least two spaces before `#`, one after); any other `#` after a
value on the same line is text the author meant to keep and must be quoted.
A block whose top-level keys are all manifest keys is a manifest fragment: it is
put into the complete example of docs/manifest.md and must load as a manifest.
"""

from __future__ import annotations

import json
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml
from shiplint.manifest.load import load_manifest

from tests.test_docs import complete_manifest_text, merge

if sys.version_info >= (3, 11):
    import tomllib
else:
    import tomli as tomllib

REPO = Path(__file__).resolve().parent.parent
PAGES = [REPO / "README.md", *sorted((REPO / "docs").rglob("*.md"))]
_FENCE = re.compile(r"^```(yaml|yml|toml)[ \t]*\n(.*?)^```", re.M | re.S)


@dataclass(frozen=True)
class Block:
    page: Path
    line: int  # of the block's first line of content
    language: str
    text: str

    @property
    def where(self) -> str:
        return f"{self.page.relative_to(REPO)}:{self.line}"


def blocks() -> list[Block]:
    found = []
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        for match in _FENCE.finditer(text):
            line = text.count("\n", 0, match.start(2)) + 1
            language = "toml" if match.group(1) == "toml" else "yaml"
            found.append(Block(page, line, language, match.group(2)))
    return found


def comment_problems(text: str) -> list[str]:
    """Inline comments that may be swallowed text: `#` after a value not written `  # text`.

    YAML's own scanner says where each token ends, so a `#` inside a quoted string
    or a block scalar is never mistaken for a comment.
    """
    ends: dict[int, int] = {}
    for token in yaml.scan(text, Loader=yaml.SafeLoader):
        mark = token.end_mark
        # A token that ends at column 0 ended with the line before (a block scalar).
        if mark.column > 0:
            ends[mark.line] = max(ends.get(mark.line, 0), mark.column)
    problems = []
    lines = text.splitlines()
    for number, column in sorted(ends.items()):
        rest = lines[number][column:] if number < len(lines) else ""
        comment = rest.lstrip()
        if not comment.startswith("#"):
            continue
        gap = len(rest) - len(comment)
        if gap < 2 or comment[1:2] not in ("", " "):
            problems.append(f"line {number + 1}: {lines[number].strip()!r} drops {comment!r}")
    return problems


def manifest_keys() -> set[str]:
    schema = json.loads((REPO / "schemas" / "manifest.schema.json").read_text(encoding="utf-8"))
    return set(schema["properties"])


ALL = blocks()


def test_the_pages_have_examples() -> None:
    # Guards the tests below against a fence pattern that finds nothing.
    languages = {(b.page.name, b.language) for b in ALL}
    assert {("README.md", "yaml"), ("README.md", "toml"), ("manifest.md", "yaml")} <= languages


@pytest.mark.parametrize("block", ALL, ids=lambda b: b.where)
def test_example_loads(block: Block) -> None:
    if block.language == "toml":
        tomllib.loads(block.text)
    else:
        yaml.safe_load(block.text)


@pytest.mark.parametrize("block", [b for b in ALL if b.language == "yaml"], ids=lambda b: b.where)
def test_no_text_is_lost_to_a_comment(block: Block) -> None:
    assert comment_problems(block.text) == [], f"{block.where}: quote these values"


@pytest.mark.parametrize(
    ("text", "problems"),
    [
        (
            "reason: kept (tracked in #123).\n",
            ["line 1: 'reason: kept (tracked in #123).' drops '#123).'"],
        ),
        ("reason: a # b\n", ["line 1: 'reason: a # b' drops '# b'"]),
        ("reason: 'kept (tracked in #123).'\n", []),
        ('reason: "a # b"  # a real comment\n', []),
        ("# yaml-language-server: $schema=x\nkey: value\n", []),
        ("hooks:\n  - id: x   # sources\n", []),
        ("text: |\n  line one #1\n  line two\nnext: v\n", []),
    ],
    ids=[
        "issue-number",
        "spaced-hash",
        "quoted",
        "quoted-then-comment",
        "full-line",
        "aligned",
        "block",
    ],
)
def test_comment_check(text: str, problems: list[str]) -> None:
    assert comment_problems(text) == problems


def _fragment(block: Block) -> dict[str, Any] | None:
    if block.language != "yaml":
        return None
    data = yaml.safe_load(block.text)
    if isinstance(data, dict) and data and set(data) <= manifest_keys():
        return data
    return None


FRAGMENTS = [b for b in ALL if _fragment(b) is not None]


def test_readme_has_a_manifest_fragment() -> None:
    assert any(b.page.name == "README.md" for b in FRAGMENTS)


@pytest.mark.parametrize("block", FRAGMENTS, ids=lambda b: b.where)
def test_manifest_fragment_is_valid_in_context(block: Block, tmp_path: Path) -> None:
    fragment = _fragment(block)
    assert fragment is not None
    base = merge(yaml.safe_load(complete_manifest_text()), fragment)
    path = tmp_path / "shiplint.yaml"
    path.write_text(yaml.safe_dump(base, sort_keys=False), encoding="utf-8")
    load_manifest(path)
