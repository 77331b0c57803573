"""The step summary's cells, rendered by GitHub's own Markdown (cmark-gfm, the `cmarkgfm`
bindings): a finding's text, whatever names it quotes, is one cell and reads as written."""

from __future__ import annotations

import html
import re
from pathlib import Path

import cmarkgfm
import pytest
from cmarkgfm.cmark import Options
from shiplint.diagnostics import Location
from shiplint.report.markdown import cell, render

from tests.report_fixtures import diagnostic, sample_report

HOSTILE = [
    "a | b",
    "a \\| b",
    "ends in a backslash \\",
    "\\\\|",
    "*em* _em_ **strong** ~~gone~~",
    "[a link](https://example.com) ![img](x.png)",
    "`code` $x^2$ :smile: :x:",
    "<script>alert(1)</script> &amp; &#124;",
    "ns::f<int>(std::vector<T>&)",
    "www.example.com",
]


def _cells(markdown: str) -> list[list[str]]:
    """The body rows of the first table, each cell's text as a reader sees it."""
    rendered = cmarkgfm.github_flavored_markdown_to_html(markdown, options=Options.CMARK_OPT_UNSAFE)
    body = rendered.split("<tbody>", 1)[1].split("</tbody>", 1)[0]
    rows = re.findall(r"<tr>(.*?)</tr>", body, re.S)
    return [
        [html.unescape(re.sub(r"<[^>]+>", "", c)) for c in re.findall(r"<td>(.*?)</td>", r, re.S)]
        for r in rows
    ]


@pytest.mark.parametrize("text", HOSTILE)
def test_a_cell_reads_as_written(text: str) -> None:
    table = f"| a | b |\n|---|---|\n| <code>{cell(text)}</code> | {cell(text)} |\n"
    assert _cells(table) == [[text, text]]


@pytest.mark.parametrize("text", HOSTILE)
def test_a_finding_is_one_row_of_four_cells(tmp_path: Path, text: str) -> None:
    found = diagnostic("SL001", f"member {text} is odd", Location(f"dist/x.whl!/{text}", 3))
    rows = _cells(render(sample_report(tmp_path, (found,))))
    row = next(r for r in rows if r[3].startswith("member "))
    assert row[2] == f"dist/x.whl!/{text}:3"
    assert row[3].startswith(f"member {text} is odd")
