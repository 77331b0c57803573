"""SARIF 2.1.0 output: valid against the official schema and shaped for code scanning."""

from __future__ import annotations

import io
import json
from collections import Counter
from contextlib import redirect_stdout
from dataclasses import replace
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from shiplint.catalogue import catalogue
from shiplint.cli import main as cli_main
from shiplint.diagnostics import Location, Subject
from shiplint.report import reporter
from shiplint.report.model import Report
from shiplint.report.sarif import FINGERPRINT_KEY, SRCROOT, render, sarif

from tests.artifact_libs import pack_wheel
from tests.real_reports import (
    PINNED_CODES,
    PINNED_EXPLANATION,
    executorch_report,
    real_wheel,
    shared_dir,
)
from tests.report_fixtures import WHEEL, diagnostic, sample_diagnostics, sample_report

SCHEMA_PATH = Path(__file__).parent / "data" / "sarif-schema-2.1.0.json"
ACME_MANIFEST = Path(__file__).parent / "data" / "projects" / "acme" / "shiplint.yaml"


@pytest.fixture(scope="session")
def validator() -> jsonschema.Draft4Validator:
    schema = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    jsonschema.Draft4Validator.check_schema(schema)
    return jsonschema.Draft4Validator(
        schema, format_checker=jsonschema.Draft4Validator.FORMAT_CHECKER
    )


def assert_valid(validator: jsonschema.Draft4Validator, document: Any) -> None:
    errors = sorted(validator.iter_errors(document), key=lambda e: list(e.absolute_path))
    assert not errors, "\n".join(f"{list(e.absolute_path)}: {e.message}" for e in errors)


def results(document: dict[str, Any]) -> list[dict[str, Any]]:
    return list(document["runs"][0]["results"])


def test_sample_validates_against_official_schema(
    validator: jsonschema.Draft4Validator, tmp_path: Path
) -> None:
    document = json.loads(render(sample_report(tmp_path)))
    assert_valid(validator, document)
    assert len(results(document)) == len(sample_diagnostics())


def test_validator_rejects_a_broken_document(
    validator: jsonschema.Draft4Validator, tmp_path: Path
) -> None:
    # Guards the guard: the schema copy must actually constrain results.
    document = sarif(sample_report(tmp_path))
    document["runs"][0]["results"][0]["level"] = "fatal"
    del document["runs"][0]["results"][1]["message"]
    assert len(list(validator.iter_errors(document))) >= 2


def test_reporter_by_name_is_this_module(tmp_path: Path) -> None:
    assert reporter("sarif")(sample_report(tmp_path)) == render(sample_report(tmp_path))


def test_every_catalogued_rule_is_described(tmp_path: Path) -> None:
    rules = sarif(sample_report(tmp_path))["runs"][0]["tool"]["driver"]["rules"]
    assert [r["id"] for r in rules] == sorted(catalogue())
    for rule in rules:
        doc = catalogue()[rule["id"]]
        assert rule["name"] == doc.slug
        assert rule["shortDescription"]["text"] == doc.summary
        assert rule["fullDescription"]["text"] == doc.why
        assert doc.example in rule["help"]["text"] and doc.fix in rule["help"]["text"]
        assert f"```\n{doc.example}\n```" in rule["help"]["markdown"]
        assert (
            rule["defaultConfiguration"]["level"]
            == {
                "error": "error",
                "warning": "warning",
                "info": "note",
            }[doc.severity.value]
        )


def test_results_point_at_their_rule_and_root_relative_files(tmp_path: Path) -> None:
    document = sarif(sample_report(tmp_path))
    run = document["runs"][0]
    rules = run["tool"]["driver"]["rules"]
    assert run["originalUriBaseIds"][SRCROOT]["uri"] == tmp_path.resolve().as_uri() + "/"
    manifest, member, commas, outside = results(document)
    for result in (manifest, member, commas, outside):
        assert rules[result["ruleIndex"]]["id"] == result["ruleId"]

    loc = manifest["locations"][0]["physicalLocation"]
    assert loc["artifactLocation"] == {"uri": "shiplint.yaml", "uriBaseId": SRCROOT}
    assert loc["region"] == {"startLine": 120, "startColumn": 5}
    assert manifest["level"] == "warning"
    assert manifest["message"]["text"].endswith(
        "\nRemove the waiver, or correct its rule code or subject."
    )

    # Inside a wheel: the wheel file is the physical location, the member a logical one.
    loc = member["locations"][0]
    assert loc["physicalLocation"]["artifactLocation"] == {
        "uri": f"dist/{WHEEL}",
        "uriBaseId": SRCROOT,
    }
    assert "region" not in loc["physicalLocation"]
    assert loc["logicalLocations"] == [
        {
            "name": "executorch/lib/libexecutorch.so",
            "fullyQualifiedName": f"dist/{WHEEL}!/executorch/lib/libexecutorch.so",
            "kind": "resource",
        }
    ]
    assert member["properties"]["archiveMember"] == "executorch/lib/libexecutorch.so"
    assert member["properties"]["subject"] == {"library": "executorch", "artifact": WHEEL}

    # URIs are percent-encoded; a path outside the root is an absolute file URI.
    uri = commas["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
    assert uri == "cmake/dir%2C%20with%20comma/x%3Ay.cmake"
    assert outside["locations"][0]["physicalLocation"]["artifactLocation"] == {
        "uri": "file:///elsewhere/shiplint.yaml"
    }
    assert outside["level"] == "note"


def test_absolute_path_under_root_is_made_relative(tmp_path: Path) -> None:
    d = diagnostic("SL001", "m", Location(str(tmp_path / "sub" / "CMakeLists.txt"), 2))
    (result,) = results(sarif(sample_report(tmp_path, (d,))))
    assert result["locations"][0]["physicalLocation"]["artifactLocation"] == {
        "uri": "sub/CMakeLists.txt",
        "uriBaseId": SRCROOT,
    }


def test_waived_finding_is_an_external_suppression_with_its_reason(tmp_path: Path) -> None:
    for result, d in zip(
        results(sarif(sample_report(tmp_path))), sample_diagnostics(), strict=True
    ):
        if d.waived is None:
            assert "suppressions" not in result
        else:
            assert result["suppressions"] == [
                {"kind": "external", "status": "accepted", "justification": d.waived}
            ]


def fingerprint(d: Any, root: Path) -> str:
    (result,) = results(sarif(sample_report(root, (d,))))
    value: str = result["partialFingerprints"][FINGERPRINT_KEY]
    return value


def test_fingerprint_ignores_line_column_and_message(tmp_path: Path) -> None:
    base = sample_diagnostics()[0]
    moved = replace(base, location=Location(base.location.path, 300, 1), message="reworded")
    assert fingerprint(base, tmp_path) == fingerprint(moved, tmp_path)
    # ...and does not depend on where the checkout lives.
    assert fingerprint(base, tmp_path) == fingerprint(base, tmp_path / "elsewhere")


def test_fingerprint_tells_apart_code_subject_and_path(tmp_path: Path) -> None:
    base = sample_diagnostics()[0]
    variants = [
        base,
        replace(base, code="SL002"),
        replace(base, subject=Subject(library="a")),
        replace(base, subject=Subject(library="b")),
        replace(base, location=Location("other.yaml", 120, 5)),
    ]
    assert len({fingerprint(v, tmp_path) for v in variants}) == len(variants)


def test_fingerprint_survives_a_new_wheel_version(tmp_path: Path) -> None:
    old = sample_diagnostics()[1]
    new_wheel = WHEEL.replace("1.5.1", "1.6.0")
    new = replace(
        old,
        location=replace(old.location, path=old.location.path.replace(WHEEL, new_wheel)),
        subject=Subject(library="executorch", artifact=new_wheel),
    )
    other_platform = replace(
        old,
        location=replace(old.location, path=old.location.path.replace("x86_64", "aarch64")),
        subject=Subject(library="executorch", artifact=WHEEL.replace("x86_64", "aarch64")),
    )
    elsewhere = replace(old, location=replace(old.location, path=f"/tmp/build/{WHEEL}"))
    assert fingerprint(old, tmp_path) == fingerprint(new, tmp_path)
    assert fingerprint(old, tmp_path) == fingerprint(elsewhere, tmp_path)
    assert fingerprint(old, tmp_path) != fingerprint(other_platform, tmp_path)
    # ...and to a newer CMake.
    on_old = replace(old, subject=Subject(variable="V", cmake_version="3.24.3"))
    on_new = replace(old, subject=Subject(variable="V", cmake_version="3.27.9"))
    assert fingerprint(on_old, tmp_path) == fingerprint(on_new, tmp_path)


def test_fingerprints_unique_within_a_run(tmp_path: Path) -> None:
    d = sample_diagnostics()[0]
    twins = (d, replace(d, message="another"), replace(d, message="third"))
    prints = [
        r["partialFingerprints"][FINGERPRINT_KEY]
        for r in results(sarif(sample_report(tmp_path, twins)))
    ]
    assert len(set(prints)) == 3
    assert prints[1] == prints[0] + ":2"


def test_empty_run_is_valid_and_deterministic(
    validator: jsonschema.Draft4Validator, tmp_path: Path
) -> None:
    text = render(sample_report(tmp_path, ()))
    assert text == render(sample_report(tmp_path, ()))
    document = json.loads(text)
    assert_valid(validator, document)
    assert results(document) == []
    assert document["runs"][0]["properties"]["summary"]["passed"] is True


@pytest.fixture(scope="session")
def real_report(tmp_path_factory: pytest.TempPathFactory) -> Report:
    return executorch_report(shared_dir(tmp_path_factory.getbasetemp()))


def test_real_wheel_sarif_validates_and_keeps_every_finding(
    validator: jsonschema.Draft4Validator, real_report: Report
) -> None:
    document = json.loads(render(real_report))
    assert_valid(validator, document)
    found = results(document)
    assert len(found) == len(real_report.diagnostics)
    # The real findings, pinned; see tests/real_reports.py for what each one is.
    assert Counter(r["ruleId"] for r in found) == PINNED_CODES
    assert set(PINNED_EXPLANATION) == set(PINNED_CODES)
    rules = document["runs"][0]["tool"]["driver"]["rules"]
    name = real_wheel().name
    for result in found:
        assert rules[result["ruleIndex"]]["id"] == result["ruleId"]
        artifact = result["locations"][0]["physicalLocation"]["artifactLocation"]
        # The wheel lies outside the checked root: an absolute file URI.
        assert artifact == {"uri": real_wheel().as_uri()}
        assert result["properties"]["subject"]["artifact"] == name
    prints = [r["partialFingerprints"][FINGERPRINT_KEY] for r in found]
    assert len(set(prints)) == len(prints)
    (config,) = (r for r in found if r["ruleId"] == "SL102")
    assert config["locations"][0]["logicalLocations"][0]["fullyQualifiedName"] == (
        f"{real_wheel()}!/executorch/share/cmake/executorch-config.cmake"
    )
    assert config["level"] == "error"
    assert "backend_qnn" in config["message"]["text"]


def test_manifest_waiver_becomes_a_suppression_end_to_end(
    validator: jsonschema.Draft4Validator, tmp_path: Path
) -> None:
    # The acme manifest with a waiver, and a wheel that lacks its library and config.
    manifest = tmp_path / "shiplint.yaml"
    manifest.write_text(
        ACME_MANIFEST.read_text(encoding="utf-8")
        + "waivers:\n"
        + "  - rule: SL114\n"
        + "    reason: The config ships in the separate acme-cmake wheel (ACME-7).\n",
        encoding="utf-8",
    )
    wheel = pack_wheel(
        tmp_path / "acme-1.0-py3-none-manylinux_2_28_x86_64.whl",
        {"acme/README": b"nothing linkable\n"},
    )
    out = tmp_path / "report.sarif"
    with redirect_stdout(io.StringIO()):
        code = cli_main(
            ["check", "--no-sources", "--manifest", str(manifest), "--root", str(tmp_path),
             "--format", "sarif", "--output", str(out), str(wheel)]
        )  # fmt: skip
    assert code == 1  # SL301 still fails the run; the waived SL114 does not count
    document = json.loads(out.read_text(encoding="utf-8"))
    assert_valid(validator, document)
    by_rule = {r["ruleId"]: r for r in results(document)}
    assert set(by_rule) == {"SL114", "SL301"}
    assert by_rule["SL114"]["suppressions"] == [
        {
            "kind": "external",
            "status": "accepted",
            "justification": "The config ships in the separate acme-cmake wheel (ACME-7).",
        }
    ]
    assert "suppressions" not in by_rule["SL301"]
    assert document["runs"][0]["properties"]["summary"]["waived"] == 1
