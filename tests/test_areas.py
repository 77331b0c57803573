"""Each area states what it builds and reads; a run builds only what its selected rules read."""

from __future__ import annotations

from pathlib import Path

import pytest
from shiplint.areas import AREAS, ENGINE_MODELS, Input, plan
from shiplint.cli import main
from shiplint.registry import MODULES, RULES, module_rules, rules_for
from shiplint.request import RunRequest
from shiplint.selection import Selection

from tests.material import EXAMPLE_MANIFEST, NEW_CMAKE_VERSION, REPO, cmake, wheel

BINARY_READER = "starting the binary reader"
READING_BINARIES = "reading the binaries of"
EVALUATING_CONFIG = "evaluating the CMake config of"
LISTING = "reading executorch-1.5.1"


def test_every_rule_reads_a_model_some_area_builds() -> None:
    built = {model for area in AREAS for model in area.produces} | set(ENGINE_MODELS)
    unbuilt = {rule.code: rule.model.__name__ for rule in RULES if rule.model not in built}
    assert unbuilt == {}


def test_every_area_builds_a_model_some_rule_reads() -> None:
    read = {rule.model for rule in RULES}
    assert [a.name for a in AREAS if not read.intersection(a.produces)] == []


def test_each_rule_module_is_listed_with_its_code_prefix_and_the_areas_it_reads() -> None:
    checks = REPO / "linter" / "shiplint" / "checks"
    assert sorted(name for name, _, _ in MODULES) == sorted(
        path.stem for path in checks.glob("*.py") if path.stem != "__init__"
    )
    for name, prefix, areas in MODULES:
        rules = module_rules(name)
        assert rules, name
        assert [r.code for r in rules if not r.code.startswith(prefix)] == [], name
        built = {model for area in areas for model in area.produces} or set(ENGINE_MODELS)
        assert [r.code for r in rules if r.model not in built] == [], name


@pytest.mark.parametrize(
    ("check_sources", "artifacts", "select", "modules"),
    [
        (True, (), (), {"meta", "config_eval", "config_diagnostics", "sources"}),
        (True, (), ("SL2",), {"meta", "sources"}),
        (False, (Path("a.whl"),), ("SL3",), {"meta", "artifacts", "symbols", "requirements",
                                             "wheel_name", "import_libraries", "platform_promises", "provided_reach",
                                             "include_closure"}),
        (False, (Path("a.whl"),), (), {name for name, _, _ in MODULES} - {"sources", "link_probe", "header_probe"}),
    ],
    ids=["hook", "hook-sl2", "artifact-sl3", "artifact"],
)  # fmt: skip
def test_a_run_loads_the_rule_modules_it_can_use(
    check_sources: bool, artifacts: tuple[Path, ...], select: tuple[str, ...], modules: set[str]
) -> None:
    request = RunRequest(
        root=REPO,
        check_sources=check_sources,
        artifacts=artifacts,
        cmake=(),
        selection=Selection(select),
    )
    by_module = {rule.code: name for name, _, _ in MODULES for rule in module_rules(name)}
    assert {by_module[rule.code] for rule in rules_for(request)} == modules


@pytest.mark.parametrize(
    ("select", "link_probe", "reads"),
    [
        ("SL1", False, {Input.LISTING, Input.CMAKE}),
        # The include closure (SL343-SL348) reads the config's published include
        # directories: the SL3 artifact rules but it read no CMake.
        ("SL3", False, {Input.LISTING, Input.BINARIES, Input.CMAKE}),
        ("SL31", False, {Input.LISTING, Input.BINARIES}),
        ("SL343", False, {Input.LISTING, Input.CMAKE}),
        ("SL4", False, {Input.LISTING, Input.BINARIES}),
        ("SL5", False, set()),
        ("SL5", True, {Input.LISTING, Input.BINARIES, Input.CMAKE, Input.CONSUMER_BUILDS}),
        ("SL2", False, set()),
    ],
)
def test_the_plan_reads_what_the_selected_rules_need(
    select: str, link_probe: bool, reads: set[Input]
) -> None:
    request = RunRequest(
        root=REPO,
        check_sources=False,
        artifacts=(Path("a.whl"),),
        cmake=(),
        link_probe=link_probe,
        selection=Selection((select,)),
    )
    run = plan(request, RULES, request.selection)
    assert {i for i in Input if run.reads(i)} == reads


def _steps(select: str, capsys: pytest.CaptureFixture[str], *extra: str) -> str:
    """What a real run over the 1.5.1 wheel said it read and built (--verbose, on stderr)."""
    capsys.readouterr()
    argv = ["check", "--no-sources", "--verbose", "--manifest", str(EXAMPLE_MANIFEST)]
    argv += ["--root", str(REPO), "--cmake", str(cmake(NEW_CMAKE_VERSION)), "--select", select]
    main([*argv, *extra, str(wheel("1.5.1", "manylinux_2_28_x86_64"))])
    return capsys.readouterr().err


def test_a_config_only_run_reads_no_binary(capsys: pytest.CaptureFixture[str]) -> None:
    steps = _steps("SL1", capsys)
    assert EVALUATING_CONFIG in steps and LISTING in steps
    assert BINARY_READER not in steps and READING_BINARIES not in steps


def test_an_artifact_only_run_starts_no_cmake(capsys: pytest.CaptureFixture[str]) -> None:
    steps = _steps("SL31", capsys)
    assert BINARY_READER in steps and READING_BINARIES in steps
    assert EVALUATING_CONFIG not in steps and "operator registrations" not in steps


def test_an_include_closure_run_reads_no_binary(capsys: pytest.CaptureFixture[str]) -> None:
    steps = _steps("SL343", capsys)
    assert EVALUATING_CONFIG in steps and "#include lines" in steps
    assert BINARY_READER not in steps and READING_BINARIES not in steps


def test_link_probe_rules_without_the_probe_read_nothing(
    capsys: pytest.CaptureFixture[str],
) -> None:
    steps = _steps("SL5", capsys)
    assert LISTING not in steps and BINARY_READER not in steps
    assert EVALUATING_CONFIG not in steps
