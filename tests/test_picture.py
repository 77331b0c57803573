"""The Mermaid picture of a package: of a check (findings marked) and of a diff (changes
marked), on the real ExecuTorch 1.5.1 wheel; each chart read back by a structural check."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import jsonschema
import pytest
from shiplint.artifacts.records import Binding, SymbolKind, SymbolRecord
from shiplint.cli import main
from shiplint.diff.read import NO_MANIFEST
from shiplint.diff.snapshot import LibrarySnapshot, Snapshot
from shiplint.picture.mermaid import Flowchart
from shiplint.picture.package import draw
from shiplint.picture.views import view
from shiplint.report.convert import main as convert

from tests.material import EXAMPLE_MANIFEST, REPO, cmake, wheel
from tests.mermaid_structure import Chart, parse

X86 = "manylinux_2_28_x86_64"
REPORT_SCHEMA = json.loads((REPO / "schemas" / "report.schema.json").read_text())
QUANTIZED = "executorch/lib/libexecutorch_kernels_quantized.so"


def _cmakes() -> list[str]:
    return [f"--cmake={cmake('3.24.3')}", f"--cmake={cmake('4.4.5')}"]


@pytest.mark.parametrize(
    "text",
    [
        'flowchart LR\n  n1["a"]\n  n1["b"]\n',  # an id declared twice
        'flowchart LR\n  n1["a"]\n  n1 --> n2\n',  # an edge to an undeclared id
        'flowchart LR\n  subgraph g1["x"]\n  n1["a"]\n',  # a subgraph left open
        'flowchart LR\n  n1["a"]\n  class n1 hot\n',  # a class never defined
        "flowchart LR\n  n1[a.b]\n",  # an unquoted label
        'graph\n  n1["a"]\n',  # not a flowchart header
    ],
)
def test_the_structure_check_refuses_a_broken_chart(text: str) -> None:
    with pytest.raises(AssertionError):
        parse(text)


def test_labels_are_quoted_with_mermaids_entities() -> None:
    chart = Flowchart()
    group = chart.group('a "group" <with> & more')
    one = chart.node('lib"x".so <v2>', group)
    other = chart.node("std::vector<int>|x")
    chart.edge(one, other, text='a "label"')
    parsed = parse(chart.text())
    assert parsed.nodes[one] == "lib#quot;x#quot;.so #lt;v2#gt;"
    assert parsed.groups[group] == "a #quot;group#quot; #lt;with#gt; #amp; more"
    assert parsed.parents[one] == group


def _library(member: str, dependencies: tuple[str, ...] = ()) -> LibrarySnapshot:
    symbol = SymbolRecord("f", Binding.GLOBAL, "default", SymbolKind.FUNCTION)
    return LibrarySnapshot(
        member, member, None, "shared library", (), {("f", None): symbol}, dependencies=dependencies
    )


def test_extensions_are_grouped_and_their_needed_edges_leave_the_group_once() -> None:
    a = "pkg/_a.cpython-311-x86_64-linux-gnu.so"
    b = "pkg/_b.cpython-311-x86_64-linux-gnu.so"
    core = "pkg/lib/libcore.so"
    libraries = (_library(a, (core, b)), _library(b, (core,)), _library(core))
    snapshot = Snapshot("pkg.whl", "linux-x86_64", {lib.key: lib for lib in libraries}, {})
    chart = parse(draw([view(snapshot, NO_MANIFEST)]))
    group = next(g for g, title in chart.groups.items() if title == "Python extensions (2)")
    # Named without the ABI tag every extension repeats.
    assert chart.parents[chart.labelled("_a")] == group
    assert chart.parents[chart.labelled("_b")] == group
    # Both need libcore.so: one edge, from the group; _a -> _b stays inside it.
    assert chart.edges == [(group, "-.->", "", chart.labelled("libcore.so"))]


@pytest.fixture(scope="module")
def checked(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, int]:
    """The JSON report of the real 1.5.1 wheel, checked with the manifest and both CMakes."""
    report = tmp_path_factory.mktemp("picture") / "report.json"
    code = main(
        [
            "check",
            "--no-sources",
            "--manifest",
            str(EXAMPLE_MANIFEST),
            *_cmakes(),
            "--format",
            "json",
            "--output",
            str(report),
            str(wheel("1.5.1", X86)),
        ]
    )
    return report, code


def _classes(chart: Chart, node: str) -> set[str]:
    return {name for name, nodes in chart.classes.items() if node in nodes}


def test_check_picture_of_the_real_wheel(checked: tuple[Path, int]) -> None:
    report, code = checked
    assert code == 1
    document = json.loads(report.read_text())
    jsonschema.Draft202012Validator(REPORT_SCHEMA).validate(document)
    chart = parse(document["picture"])
    # The shipped libraries: the SDK's in lib/, the Python extensions and the two
    # plugins each in their group.
    titles = set(chart.groups.values())
    assert {"Python extensions (8)", "plugins (2)"} <= titles
    assert {"route paths, CMake 3.24.3", "route targets, CMake 4.4.5"} <= titles
    assert len([n for n, p in chart.parents.items() if n in chart.nodes and p]) >= 18
    runtime = chart.labelled("libexecutorch.so")
    optimized = chart.labelled("libexecutorch_kernels_optimized.so")
    # NEEDED between shipped libraries, dotted; the library that owns a component, solid.
    assert (optimized, "-.->", "", runtime) in chart.edges
    assert (runtime, "-->", "", chart.labelled("runtime")) in chart.edges
    # The opt-in component is dashed and in no aggregate, on either route.
    quantized = chart.labelled("kernels_quantized (opt-in)")
    assert "optin" in _classes(chart, quantized)
    aggregates = [n for n, label in chart.nodes.items() if label.startswith("EXECUTORCH_LIBRARIES")]
    assert len(aggregates) == 2
    assert not [e for e in chart.edges if e[0] == quantized and e[3] in aggregates]
    # Findings marked: SL320 on the optimized kernels (an error), SL102 on the pre-3.28
    # route's aggregate, which leaves backend_qnn out.
    assert "error" in _classes(chart, optimized)
    assert ": 1 error" in chart.nodes[optimized]
    paths = next(a for a in aggregates if chart.parents[a] in _groups(chart, "route paths"))
    assert "error" in _classes(chart, paths)
    qnn = chart.labelled("backend_qnn")
    assert (qnn, "-->", "", paths) not in chart.edges
    assert any(e[0] == qnn and e[3] in aggregates for e in chart.edges)


def _groups(chart: Chart, prefix: str) -> set[str]:
    return {g for g, title in chart.groups.items() if title.startswith(prefix)}


def test_the_markdown_summary_converted_from_the_report_draws_it(
    checked: tuple[Path, int], tmp_path: Path
) -> None:
    report, _ = checked
    summary = tmp_path / "summary.md"
    assert convert([str(report), "--format", "markdown", "--output", str(summary)]) == 0
    text = summary.read_text()
    block = text.split("```mermaid\n", 1)[1].split("```", 1)[0]
    assert block == json.loads(report.read_text())["picture"]
    mermaid = tmp_path / "picture.mmd"
    assert convert([str(report), "--format", "mermaid", "--output", str(mermaid)]) == 0
    assert mermaid.read_text() == block


def test_a_report_without_artifacts_says_there_is_nothing_to_draw() -> None:
    from shiplint.report import reporter
    from shiplint.report.model import Report

    chart = parse(reporter("mermaid")(Report((), None, Path("."))))
    assert list(chart.nodes.values()) == [
        "no built artifact was checked: the picture draws artifacts"
    ]


def test_diff_picture_marks_what_changed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = wheel("1.5.1", X86)
    copy = tmp_path / source.name
    with zipfile.ZipFile(source) as original, zipfile.ZipFile(copy, "w") as target:
        for info in original.infolist():
            if info.filename != QUANTIZED:
                target.writestr(info.filename, original.read(info))
    args = ["diff", "--manifest", str(EXAMPLE_MANIFEST), *_cmakes(), str(source), str(copy)]
    assert main([*args, "--format", "mermaid"]) == 1
    chart = parse(capsys.readouterr().out)
    # The removed library is drawn from the old build, red and dashed; its component too.
    gone = chart.labelled("libexecutorch_kernels_quantized.so")
    assert chart.nodes[gone].endswith(": removed")
    assert "removed" in _classes(chart, gone)
    component = chart.labelled("kernels_quantized (opt-in)")
    assert "removed" in _classes(chart, component)
    # What did not change is drawn plain.
    assert not _classes(chart, chart.labelled("libexecutorch.so"))
    assert main([*args, "--format", "markdown"]) == 1
    markdown = capsys.readouterr().out
    assert markdown.index("### Breaking") < markdown.index("```mermaid")
    parse(markdown.split("```mermaid\n", 1)[1].split("```", 1)[0])


def test_a_platform_gone_is_drawn_from_the_old_build_all_removed() -> None:
    from shiplint.diff.compare import compare
    from shiplint.picture.pictures import diff_picture

    def side(platform: str) -> Snapshot:
        lib = _library("pkg/lib/libcore.so")
        return Snapshot(f"pkg-{platform}.whl", platform, {lib.key: lib}, {})

    old, new = [side("linux-x86_64"), side("linux-aarch64")], [side("linux-x86_64")]
    chart = parse(diff_picture(old, new, NO_MANIFEST, compare(old, new)))
    gone = next(g for g, t in chart.groups.items() if t.endswith("(platform removed)"))
    kept = next(g for g, t in chart.groups.items() if t.startswith("linux-x86_64"))
    # Each libcore.so node by its platform: node -> "libraries" group -> platform group.
    cores = {
        chart.parents[chart.parents[n] or ""]: n
        for n, lab in chart.nodes.items()
        if "libcore" in lab
    }
    assert chart.nodes[cores[gone]] == "libcore.so: removed"
    assert cores[gone] in chart.classes["removed"]
    assert chart.nodes[cores[kept]] == "libcore.so"
    assert not any(cores[kept] in nodes for nodes in chart.classes.values())
