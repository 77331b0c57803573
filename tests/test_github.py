"""GitHub annotations: one workflow command per diagnostic, escaped like @actions/core."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

import pytest
from shiplint.diagnostics import Location, Subject
from shiplint.report import reporter
from shiplint.report.github import escape_data, escape_property, render
from shiplint.report.model import Report

from tests.real_reports import executorch_report, real_wheel, shared_dir
from tests.report_fixtures import WHEEL, diagnostic, sample_diagnostics, sample_report

# The runner's parser: `::command prop=value,prop=value::message` on one line.
COMMAND = re.compile(
    r"^::(?P<command>error|warning|notice)(?: (?P<props>[^:]*))?::(?P<message>.*)$"
)


def unescape(text: str) -> str:
    return (
        text.replace("%0D", "\r")
        .replace("%0A", "\n")
        .replace("%3A", ":")
        .replace("%2C", ",")
        .replace("%25", "%")
    )


def parse(line: str) -> tuple[str, dict[str, str], str]:
    match = COMMAND.match(line)
    assert match, f"not a workflow command: {line!r}"
    props: dict[str, str] = {}
    for pair in (match["props"] or "").split(","):
        key, _, value = pair.partition("=")
        props[key] = unescape(value)
    return match["command"], props, unescape(match["message"])


@pytest.mark.parametrize(
    ("raw", "data", "prop"),
    [
        ("plain", "plain", "plain"),
        ("50%", "50%25", "50%25"),
        ("a\r\nb", "a%0D%0Ab", "a%0D%0Ab"),
        ("x:y,z", "x:y,z", "x%3Ay%2Cz"),
        ("%0A literal", "%250A literal", "%250A literal"),
    ],
)
def test_escaping_matches_the_actions_toolkit(raw: str, data: str, prop: str) -> None:
    assert escape_data(raw) == data
    assert escape_property(raw) == prop
    assert unescape(escape_property(raw)) == raw


def test_one_line_per_finding_round_trips(tmp_path: Path) -> None:
    text = render(sample_report(tmp_path))
    lines = text.splitlines()
    assert text.endswith("\n") and "\r" not in text
    assert len(lines) == len(sample_diagnostics())
    manifest, member, commas, outside = (parse(line) for line in lines)

    assert manifest == (
        "warning",
        {
            "file": "shiplint.yaml",
            "line": "120",
            "col": "5",
            "title": "SL001 unmatched-waiver",
        },
        "waiver for SL305 (library=executorch_backend_qnn) matched no finding\n"
        "Remove the waiver, or correct its rule code or subject.",
    )
    # Inside an archive there is no repository file: the location leads the message.
    command, props, message = member
    assert command == "error"
    assert props == {"title": "SL002 rule-crashed"}
    assert message.startswith(f"dist/{WHEEL}!/executorch/lib/libexecutorch.so: rule SL305 failed")
    assert message.endswith("\n100% a bug,\r\nplease report it")

    # A waived finding stays visible as a notice with its reason; commas survive in file=.
    command, props, message = commas
    assert command == "notice"
    assert props["file"] == "cmake/dir, with comma/x:y.cmake"
    assert props["line"] == "7" and "col" not in props
    assert props["title"] == "SL002 rule-crashed (waived)"
    assert message == (
        "second, distinct crash: 50% done\nwaived: known upstream, see pytorch/executorch#21642"
    )

    # Info is a notice; a file outside the checked tree is named in the message instead.
    command, props, message = outside
    assert command == "notice" and "file" not in props
    assert message == "/elsewhere/shiplint.yaml:3:1: an info-level note outside the tree"


def test_reporter_by_name_and_empty_report(tmp_path: Path) -> None:
    assert reporter("github")(sample_report(tmp_path)) == render(sample_report(tmp_path))
    assert render(sample_report(tmp_path, ())) == ""


def test_hostile_message_cannot_inject_a_second_command(tmp_path: Path) -> None:
    d = diagnostic(
        "SL001",
        "value\n::error file=evil::injected\r\n::set-output name=x::y",
        Location("shiplint.yaml", 1),
    )
    lines = render(sample_report(tmp_path, (d, replace(d, message="ok")))).splitlines()
    assert len(lines) == 2
    assert sum(line.startswith("::") for line in lines) == 2
    assert parse(lines[0])[2].splitlines()[1] == "::error file=evil::injected"


def test_artifact_file_location_is_named_in_the_message(tmp_path: Path) -> None:
    # A finding about a whole wheel: the wheel is a build output, not a repository file.
    d = diagnostic(
        "SL001",
        "holds no config",
        Location(WHEEL),
        Subject(artifact=WHEEL),
    )
    (line,) = render(sample_report(tmp_path, (d,))).splitlines()
    command, props, message = parse(line)
    assert (command, props) == ("warning", {"title": "SL001 unmatched-waiver"})
    assert message == f"{WHEEL}: holds no config"
    # The same name without the artifact subject is an ordinary file of the tree.
    (line,) = render(sample_report(tmp_path, (replace(d, subject=Subject()),))).splitlines()
    assert parse(line)[1]["file"] == WHEEL


@pytest.fixture(scope="session")
def real_report(tmp_path_factory: pytest.TempPathFactory) -> Report:
    return executorch_report(shared_dir(tmp_path_factory.getbasetemp()))


def test_real_wheel_annotations_one_line_per_finding(real_report: Report) -> None:
    text = render(real_report)
    lines = text.splitlines()
    assert len(lines) == len(real_report.diagnostics) > 0
    parsed = [parse(line) for line in lines]
    by_command = {c: sum(1 for p in parsed if p[0] == c) for c in ("error", "warning", "notice")}
    s = real_report.summary()
    assert by_command == {"error": s["errors"], "warning": s["warnings"], "notice": s["infos"]}
    prefix = f"{real_wheel()}!/"
    for (_, props, message), d in zip(parsed, real_report.diagnostics, strict=True):
        # Wheel members are not repository files: no file=, the location leads the message.
        assert set(props) == {"title"}
        assert props["title"] == f"{d.code} {d.slug}"
        assert message.startswith(prefix) and d.message in message


def test_a_run_that_could_not_check_is_annotated_where_it_stopped(tmp_path: Path) -> None:
    from shiplint.report.stopped import error_annotations

    outside = tmp_path.parent / "elsewhere" / "pyproject.toml"
    stderr = (
        "shiplint: error: shiplint.yaml:7:3: unknown key 'colour' (at colour)\n"
        f"shiplint: error: {tmp_path / 'pyproject.toml'}:2:1: CMake x: not found\n"
        f"shiplint: error: {outside}:2:1: invalid TOML\n"
        "shiplint: error: --cmake /bin/true: `cmake --version` printed no CMake version\n"
    )
    title = "shiplint could not check"
    assert error_annotations(stderr, tmp_path, title).splitlines() == [
        f"::error file=shiplint.yaml,line=7,col=3,title={title}::unknown key 'colour' (at colour)",
        f"::error file=pyproject.toml,line=2,col=1,title={title}::CMake x: not found",
        f"::error title={title}::{outside}:2:1: invalid TOML",
        f"::error title={title}::shiplint: error: --cmake /bin/true: `cmake --version` printed "
        "no CMake version",
    ]
    assert error_annotations("", tmp_path, title) == (
        f"::error title={title}::shiplint stopped without saying why\n"
    )
