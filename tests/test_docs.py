"""The docs stay true: docs/rules.md is the catalogue rendered, docs/manifest.md covers the schema."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import yaml
from shiplint import docs_gen
from shiplint.catalogue import catalogue
from shiplint.config import load_config
from shiplint.manifest.load import load_manifest

REPO = Path(__file__).resolve().parent.parent
RULES_PAGE = REPO / "docs" / "rules.md"
MANIFEST_PAGE = REPO / "docs" / "manifest.md"
SCHEMAS = REPO / "schemas"


def test_rules_page_is_up_to_date() -> None:
    expected = docs_gen.render(list(catalogue().values()))
    assert RULES_PAGE.read_text(encoding="utf-8") == expected, (
        "docs/rules.md is stale: run `python -m shiplint.docs_gen` and commit the result"
    )


def test_every_rule_has_its_section_and_table_row() -> None:
    page = RULES_PAGE.read_text(encoding="utf-8")
    for doc in catalogue().values():
        assert f'<a id="{doc.code.lower()}"></a>\n### {doc.code} `{doc.slug}`' in page
        assert f"| [{doc.code}](#{doc.code.lower()}) | `{doc.slug}` |" in page
        assert doc.fix.splitlines()[0] in page


def test_check_mode_detects_a_stale_page(tmp_path: Path) -> None:
    page = tmp_path / "rules.md"
    assert docs_gen.main(["--check", "--output", str(page)]) == 1  # missing
    assert docs_gen.main(["--output", str(page)]) == 0
    assert docs_gen.main(["--check", "--output", str(page)]) == 0
    page.write_text(page.read_text(encoding="utf-8").replace("SL001", "SL999"), encoding="utf-8")
    assert docs_gen.main(["--check", "--output", str(page)]) == 1


def test_rendering_follows_the_rule_documents() -> None:
    doc = catalogue()["SL001"]
    changed = replace(doc, summary="Changed | summary.", area="some-new-area")
    page = docs_gen.render([changed])
    assert "| [SL001](#sl001) | `unmatched-waiver` | warning | Changed \\| summary. |" in page
    # An area the generator has no title for still gets a section.
    assert "## SL0xx: some-new-area" in page


# --- docs/manifest.md -------------------------------------------------------------

PLATFORM_KEY = "<platform>"


def schema_paths(schema: dict[str, Any]) -> set[str]:
    """Every field path the schema allows: `a.b`, `a[]`, `<platform>` for selector keys."""
    defs = schema.get("$defs", {})
    out: set[str] = set()

    def walk(node: dict[str, Any], path: str) -> None:
        if "$ref" in node:
            walk(defs[node["$ref"].rsplit("/", 1)[1]], path)
            return
        for key, sub in node.get("properties", {}).items():
            child = f"{path}.{key}" if path else key
            out.add(child)
            walk(sub, child)
        if isinstance(node.get("items"), dict):
            walk(node["items"], path + "[]")
        if isinstance(node.get("additionalProperties"), dict):
            child = f"{path}.{PLATFORM_KEY}"
            out.add(child)
            walk(node["additionalProperties"], child)

    walk(schema, "")
    return out


def data_paths(data: Any, path: str = "") -> Iterator[str]:
    if isinstance(data, dict):
        for key, value in data.items():
            # Platform selectors are the only free-form keys of the manifest.
            name = PLATFORM_KEY if path.endswith(".platforms") else key
            child = f"{path}.{name}" if path else name
            yield child
            yield from data_paths(value, child)
    elif isinstance(data, list):
        for item in data:
            yield from data_paths(item, path + "[]")


def complete_manifest_text() -> str:
    page = MANIFEST_PAGE.read_text(encoding="utf-8")
    match = re.search(r"<!-- complete-manifest -->\n```yaml\n(.*?)```", page, re.S)
    assert match, "docs/manifest.md lost its complete example"
    return match.group(1)


def snippets() -> list[str]:
    page = MANIFEST_PAGE.read_text(encoding="utf-8")
    blocks = re.findall(r"```yaml\n(.*?)```", page, re.S)
    return [b for b in blocks if b != complete_manifest_text() and not b.startswith("#")]


def manifest_schema() -> dict[str, Any]:
    schema: dict[str, Any] = json.loads(
        (SCHEMAS / "manifest.schema.json").read_text(encoding="utf-8")
    )
    return schema


def test_complete_manifest_example_loads(tmp_path: Path) -> None:
    path = tmp_path / "shiplint.yaml"
    path.write_text(complete_manifest_text(), encoding="utf-8")
    manifest = load_manifest(path)
    assert manifest.name == "acme"
    assert [lib.name for lib in manifest.libraries] == [
        "acme",
        "acme_kernels_quantized",
        "quantized_ops_aot",
        "tbb",
        "_C",
    ]
    assert manifest.cmake_packages == ("acme", "TBB")
    tbb = manifest.for_package("TBB")
    assert [c.name for c in tbb.components] == ["tbb"]
    assert [a.variable for a in tbb.aggregates] == ["TBB_IMPORTED_TARGETS"]
    assert tbb.cmake.installed_config_dirs == ("acme/lib/cmake/TBB",)


def test_complete_manifest_example_uses_every_field() -> None:
    used = set(data_paths(yaml.safe_load(complete_manifest_text())))
    missing = schema_paths(manifest_schema()) - used
    assert not missing, f"fields with no example in docs/manifest.md: {sorted(missing)}"


def test_every_field_is_documented() -> None:
    page = MANIFEST_PAGE.read_text(encoding="utf-8")
    rows = set(re.findall(r"^\| `([^`]+)` \|", page, re.M))
    missing = schema_paths(manifest_schema()) - rows
    assert not missing, f"fields without a row in docs/manifest.md: {sorted(missing)}"
    # ...and no row documents a field the schema does not have.
    config_keys = set(json.loads((SCHEMAS / "config.schema.json").read_text())["properties"])
    unknown = rows - schema_paths(manifest_schema()) - config_keys
    assert not unknown, f"rows for fields the schemas do not define: {sorted(unknown)}"


def test_schema_walk_sees_nested_fields() -> None:
    # Guards the coverage tests above against a walker that finds nothing.
    paths = schema_paths(manifest_schema())
    assert {
        "cmake.routes[].below",
        "libraries[].platforms.<platform>.required",
        "waivers[].subject.cmake_version",
        "sources.build_declarations[].kind",
    } <= paths


def merge(base: dict[str, Any], excerpt: dict[str, Any]) -> dict[str, Any]:
    """The complete example with an excerpt's entries put in place of the ones they name."""
    for key, value in excerpt.items():
        current = base.get(key)
        if isinstance(current, dict):
            current.update(value)
        elif isinstance(current, list):
            for item in value:
                ident = next((item[k] for k in ("name", "variable") if k in item), None)
                at = next(
                    (
                        i
                        for i, old in enumerate(current)
                        if old == item
                        or (ident and ident in (old.get("name"), old.get("variable")))
                    ),
                    None,
                )
                if at is None:
                    current.append(item)
                else:
                    current[at] = item
        else:
            base[key] = value
    return base


@pytest.mark.parametrize("snippet", snippets(), ids=lambda s: s.split(":", 1)[0])
def test_section_snippets_are_valid_in_context(snippet: str, tmp_path: Path) -> None:
    base = merge(yaml.safe_load(complete_manifest_text()), yaml.safe_load(snippet))
    path = tmp_path / "shiplint.yaml"
    path.write_text(yaml.safe_dump(base, sort_keys=False), encoding="utf-8")
    load_manifest(path)


def test_pyproject_example_is_valid_and_complete(tmp_path: Path) -> None:
    page = MANIFEST_PAGE.read_text(encoding="utf-8")
    match = re.search(r"<!-- pyproject-example -->\n```toml\n(.*?)```", page, re.S)
    assert match
    (tmp_path / "pyproject.toml").write_text(match.group(1), encoding="utf-8")
    config = load_config(tmp_path)
    assert config.manifest == tmp_path / "packaging" / "shiplint.yaml"
    schema = json.loads((SCHEMAS / "config.schema.json").read_text(encoding="utf-8"))
    assert set(schema["properties"]) <= set(re.findall(r"^([a-z-]+) =", match.group(1), re.M))
    for key in schema["properties"]:
        assert f"| `{key}` |" in page
