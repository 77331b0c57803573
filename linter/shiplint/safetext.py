"""Text from inputs made safe to print: what a config, a file name or a binary says reaches
a terminal, a JSON or SARIF file, and a CI log, and must not drive any of them."""

from __future__ import annotations

import re

# C0 controls but tab and newline, DEL, C1 controls (ESC sequences' 8-bit form), lone
# surrogates (undecodable bytes kept by surrogateescape: no UTF-8 writer takes them), and
# the Unicode line and paragraph separators.
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff\u2028\u2029]")


def _escaped(match: re.Match[str]) -> str:
    code = ord(match.group())
    if 0xD800 <= code <= 0xDFFF:
        # surrogateescape keeps byte b as U+DC00+b: show the byte.
        return f"\\x{code & 0xFF:02x}"
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def escape_text(text: str) -> str:
    """`text` with every character that could act on a terminal or break a writer escaped."""
    return _UNSAFE.sub(_escaped, text)


# Names (a file, a member, a symbol, a target) are one line wherever they are printed: a
# newline in one would start a line of the report with text the input chose.
_UNSAFE_IN_NAME = re.compile("[\x00-\x1f\x7f-\x9f\ud800-\udfff\u2028\u2029]")


def escape_name(text: str) -> str:
    """`text` as `escape_text` makes it, with tabs and newlines escaped too."""
    return _UNSAFE_IN_NAME.sub(_escaped, text)
