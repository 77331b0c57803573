"""Names a finding points at (a file, a member, a symbol) stay on one line in every report:
a newline in one would start a report line, or a CI log line, with text the input chose."""

from __future__ import annotations

from shiplint.diagnostics import Finding, Location, Subject
from shiplint.engine import stamp
from shiplint.report.text import finding_lines


def test_newlines_and_tabs_in_names_are_escaped_and_the_message_keeps_its_text() -> None:
    finding = Finding(
        "symbol f\n::error::x is undefined",
        Location("dist/x.whl", member="lib/a\n::error::forged\tb.so"),
        Subject(symbol="f\n::error::x"),
    )
    d = stamp("SL316", finding)
    assert d.location.member == "lib/a\\x0a::error::forged\\x09b.so"
    assert d.subject.symbol == "f\\x0a::error::x"
    # The report lays the message out itself (wrapping joins its lines); the location is
    # printed as it is, so it must hold no line break.
    lines = finding_lines(d)
    assert lines[0].startswith("dist/x.whl!/lib/a\\x0a::error::forged\\x09b.so")
    assert not any(line.lstrip().startswith("::error::forged") for line in lines)
