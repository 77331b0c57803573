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
from shiplint.picture.mermaid import Flowchart
from shiplint.picture.package import draw
from shiplint.picture.views import view
from shiplint.report.convert import main as convert
from shiplint.snapshot import LibrarySnapshot, Snapshot

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


def test_extensions_are_one_node_and_their_needed_edges_leave_it_once() -> None:
    a = "pkg/_a.cpython-311-x86_64-linux-gnu.so"
    b = "pkg/_b.cpython-311-x86_64-linux-gnu.so"
    core = "pkg/lib/libcore.so"
    libraries = (_library(a, (core, b)), _library(b, (core,)), _library(core))
    snapshot = Snapshot("pkg.whl", "linux-x86_64", {lib.key: lib for lib in libraries}, {})
    chart = parse(draw([view(snapshot, NO_MANIFEST)]))
    # One node lists them, named without the ABI tag every extension repeats.
    (extensions,) = chart.first_line("Python extensions (2)")
    assert chart.lines(extensions)[1] == "_a, _b"
    # Both need libcore.so: one edge, from the node; _a -> _b stays inside it.
    assert chart.edges == [(extensions, "-.->", "", chart.labelled("libcore.so"))]


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


def _visible_edges_stay_in_their_section(chart: Chart) -> None:
    """Only invisible links (which order the sections) cross a section: so a layout
    stacks the sections one under another instead of spreading them side by side."""
    for source, arrow, _, target in chart.edges:
        if arrow != "~~~":
            assert chart.parents[source] == chart.parents[target], (source, target)


def test_check_picture_of_the_real_wheel(checked: tuple[Path, int]) -> None:
    report, code = checked
    assert code == 1
    document = json.loads(report.read_text())
    jsonschema.Draft202012Validator(REPORT_SCHEMA).validate(document)
    chart = parse(document["picture"])
    titles = set(chart.groups.values())
    assert {
        "legend",
        "libraries and the components they own",
        "route paths, CMake 3.24.3: what the aggregates carry",
        "route targets, CMake 4.4.5: what the aggregates carry",
    } <= titles
    _visible_edges_stay_in_their_section(chart)
    # Each library with the components it owns; the Python extensions and the two
    # plugins one node each, listing them.
    runtime = chart.labelled("libexecutorch.so")
    assert "component runtime" in chart.lines(runtime)
    (extensions,) = chart.first_line("Python extensions (8)")
    assert "_C" in chart.nodes[extensions]
    assert chart.first_line("plugins (2)")
    optimized = chart.labelled("libexecutorch_kernels_optimized.so")
    # NEEDED between shipped libraries, dotted.
    assert (optimized, "-.->", "", runtime) in chart.edges
    # Findings marked: SL323 on the optimized kernels, said under its name.
    assert _classes(chart, optimized) & {"error", "warning"}
    # Per route, the components into the aggregate; the opt-in one dashed and left out.
    aggregates = [n for n, label in chart.nodes.items() if label.startswith("EXECUTORCH_LIBRARIES")]
    assert len(aggregates) == 2
    for quantized in chart.first_line("kernels_quantized (opt-in)"):
        assert "optin" in _classes(chart, quantized)
        assert not [e for e in chart.edges if e[0] == quantized]
    paths = next(a for a in aggregates if chart.parents[a] in _groups(chart, "route paths"))
    targets = next(a for a in aggregates if a != paths)
    assert "error" in _classes(chart, paths)
    # SL102: the pre-3.28 route's aggregate leaves backend_qnn out. Drawn as the edge
    # that is missing, in the finding's colour; on the 3.28+ route it is carried.
    qnn = {chart.parents[n]: n for n in chart.first_line("backend_qnn")}
    missing = qnn[chart.parents[paths]]
    (edge,) = [e for e in chart.edges if e[0] == missing]
    assert edge[1:] == ("-.->", "missing: 1 error", paths)
    assert "stroke:#c00" in chart.link_styles[chart.edges.index(edge)]
    assert "error" in _classes(chart, missing)
    assert (qnn[chart.parents[targets]], "-->", "", targets) in chart.edges
    # The legend names the colours drawn.
    legend = next(g for g, t in chart.groups.items() if t == "legend")
    said = {chart.nodes[n] for n, p in chart.parents.items() if p == legend and n in chart.nodes}
    assert {"error", "warning", "opt-in component"} <= said


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
    assert chart.lines(gone)[1] == "removed"
    assert "removed" in _classes(chart, gone)
    targets = next(iter(_groups(chart, "route targets")))
    (component,) = [
        n for n in chart.first_line("kernels_quantized (opt-in)") if chart.parents[n] == targets
    ]
    assert chart.nodes[component] == "kernels_quantized (opt-in): gone"
    assert "removed" in _classes(chart, component)
    # What did not change is drawn plain.
    assert not _classes(chart, chart.labelled("libexecutorch.so"))
    _visible_edges_stay_in_their_section(chart)
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
    # Each libcore.so node by its platform: node -> its section -> platform group.
    cores = {
        chart.parents[chart.parents[n] or ""]: n
        for n, lab in chart.nodes.items()
        if "libcore" in lab
    }
    assert chart.nodes[cores[gone]] == "libcore.so<br>removed"
    assert cores[gone] in chart.classes["removed"]
    assert chart.nodes[cores[kept]] == "libcore.so"
    assert not any(cores[kept] in nodes for nodes in chart.classes.values())


def test_a_component_that_left_an_aggregate_is_the_strongest_mark(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """1.4.1 to 1.5.1: _portable_lib left EXECUTORCH_LIBRARIES on both routes, which
    breaks every consumer linking the aggregate: its node and its edge are the
    strongest marks drawn (red, thick), never a faint dotted line."""
    old, new = wheel("1.4.1", X86), wheel("1.5.1", X86)
    args = ["diff", "--manifest", str(EXAMPLE_MANIFEST), *_cmakes(), str(old), str(new)]
    assert main([*args, "--format", "mermaid"]) == 1
    chart = parse(capsys.readouterr().out)
    _visible_edges_stay_in_their_section(chart)
    left = [e for e in chart.edges if e[2] == "left: breaking"]
    assert len(left) == 2
    for source, arrow, _, _ in left:
        assert arrow == "==>"
        style = chart.link_styles[chart.edges.index(next(e for e in left if e[0] == source))]
        assert "stroke:#c00" in style and "stroke-width:4px" in style
        assert chart.nodes[source] == "_portable_lib"
        assert "breaking" in _classes(chart, source)
    legend = next(g for g, t in chart.groups.items() if t == "legend")
    assert "breaking change" in {
        chart.nodes[n] for n, p in chart.parents.items() if p == legend and n in chart.nodes
    }
