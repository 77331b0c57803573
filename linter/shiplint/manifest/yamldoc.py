"""Read a YAML document into plain data while keeping every node's position.

Composes the node graph (safe, no object construction) and converts it
ourselves, so each value and each mapping key keeps its line and column for
error messages, and so an alias bomb is stopped by a node budget instead of
expanding into gigabytes.

A document parsed before comes from the user cache (keyed by its bytes, this
module's code and the installed PyYAML), as plain data in `marshal` form: the hook
loads the same manifest on every commit, and then imports no YAML parser.
"""

from __future__ import annotations

import functools
from dataclasses import field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from shiplint import cache
from shiplint.diagnostics import Location
from shiplint.fastclass import dataclass
from shiplint.manifest.errors import InputError, Problem
from shiplint.memo import Memo

if TYPE_CHECKING:
    import yaml

# Manifests are hand-written lists of a few hundred entries.
MAX_BYTES = 1024 * 1024
# Nodes after alias expansion: far above any real manifest, far below a bomb.
MAX_NODES = 200_000
# Nesting of mappings and lists: a real manifest is five deep; a recursive alias is endless.
MAX_DEPTH = 64
# A manifest is plain data. Other tags (!!python/..., !!binary, custom ones) are refused, not
# constructed; a timestamp is kept as the text it was written as.
_PLAIN_TAGS = {f"tag:yaml.org,2002:{t}" for t in ("str", "int", "float", "bool", "null")}
_TEXT_TAGS = {"tag:yaml.org,2002:timestamp"}
_COLLECTION_TAGS = {"tag:yaml.org,2002:map", "tag:yaml.org,2002:seq"}

PathKey = tuple[str | int, ...]


@functools.cache
def _loader() -> Any:
    import yaml

    return getattr(yaml, "CSafeLoader", yaml.SafeLoader)


@dataclass
class Document:
    file: str
    data: Any
    # Position (1-based line, column) of each value, by its path in the document.
    marks: dict[PathKey, tuple[int, int]] = field(default_factory=dict)
    # Position of each mapping key, by the path of the value it introduces.
    key_marks: dict[PathKey, tuple[int, int]] = field(default_factory=dict)

    def mark(self, path: PathKey) -> tuple[int, int]:
        """The position of `path`, or of its nearest ancestor that has one."""
        while path not in self.marks and path:
            path = path[:-1]
        return self.marks.get(path, (1, 1))


def _fail(file: str, line: int, column: int, message: str) -> InputError:
    return InputError([Problem(Location(file, line, column), "", message)])


def read_text(path: Path, label: str, max_bytes: int = MAX_BYTES) -> str:
    try:
        size = path.stat().st_size
    except OSError as exc:
        raise _fail(label, 1, 1, f"cannot read: {exc.strerror or exc}") from None
    if not path.is_file():
        raise _fail(label, 1, 1, "not a regular file")
    if size > max_bytes:
        raise _fail(
            label, 1, 1, f"file is {size:,} bytes; a manifest is limited to {max_bytes:,} bytes"
        )
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise _fail(label, 1, 1, f"cannot read: {exc.strerror or exc}") from None
    return decode(raw, label)


def decode(raw: bytes, label: str) -> str:
    if b"\0" in raw:
        offset = raw.index(b"\0")
        line, column = _position(raw, offset)
        raise _fail(label, line, column, "binary data (a NUL byte): not a YAML text file")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line, column = _position(raw, exc.start)
        raise _fail(label, line, column, f"not UTF-8 text (byte 0x{raw[exc.start]:02x})") from None


def _position(raw: bytes, offset: int) -> tuple[int, int]:
    line = raw.count(b"\n", 0, offset) + 1
    column = offset - (raw.rfind(b"\n", 0, offset) + 1) + 1
    return line, column


def parse_yaml(text: str, label: str) -> Document:
    """The document in `text`, with every value's and key's position; raises InputError."""
    key = text.encode()
    kept = _DOCUMENTS.get(key)
    if kept is not None:
        return Document(label, *kept)
    parsed = _plain(_parse(text, label))
    # Only a mapping can be a manifest: any other document is refused right after this,
    # and keeping it would keep the bytes of whatever file was named (a link to
    # /etc/passwd parses as one long string).
    if isinstance(parsed[0], dict):
        _DOCUMENTS.put(parsed, key)
    return Document(label, *parsed)


def _plain(doc: Document) -> tuple[Any, Any, Any]:
    return doc.data, doc.marks, doc.key_marks


def _triple(stored: Any) -> tuple[Any, Any, Any]:
    data, marks, key_marks = stored
    return data, marks, key_marks


@functools.cache
def _identity() -> bytes:
    """What else decides a parse: this module's code and the installed PyYAML."""
    return cache.source_bytes((Path(__file__),)) + b"\0" + cache.installed("yaml")


_DOCUMENTS: Memo[tuple[Any, Any, Any]] = Memo("yaml-document", _identity, decode=_triple)


def _parse(text: str, label: str) -> Document:
    import yaml

    try:
        node = yaml.compose(text, Loader=_loader())
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line, column = (mark.line + 1, mark.column + 1) if mark else (1, 1)
        problem = exc.problem or exc.context
        # libyaml (bundled from PyYAML 6.0.4 on) stops at its own nesting limit, 1000
        # levels, far past the manifest's: the same fact as the pure-Python route's.
        if problem and "maximum nesting depth" in problem:
            message = f"nested deeper than {MAX_DEPTH} levels"
        else:
            message = f"invalid YAML: {problem}"
        raise _fail(label, line, column, message) from None
    except yaml.YAMLError as exc:
        raise _fail(label, 1, 1, f"invalid YAML: {exc}") from None
    except RecursionError:
        # PyYAML composes nested collections recursively.
        raise _fail(label, 1, 1, f"nested deeper than {MAX_DEPTH} levels") from None
    if node is None:
        raise _fail(label, 1, 1, "empty document: expected a mapping")
    doc = Document(label, None)
    doc.data = _Converter(doc).convert(node, ())
    return doc


class _Converter:
    def __init__(self, doc: Document) -> None:
        self.doc = doc
        self.budget = MAX_NODES
        # One constructor for every scalar: it resolves tags (int, bool, null...) safely.
        self.constructor = _loader()("")

    def convert(self, node: yaml.Node, path: PathKey) -> Any:
        import yaml

        doc = self.doc
        self.budget -= 1
        line, column = node.start_mark.line + 1, node.start_mark.column + 1
        if self.budget < 0:
            message = f"document expands to more than {MAX_NODES:,} nodes (alias bomb?)"
            raise _fail(doc.file, line, column, message)
        if len(path) > MAX_DEPTH:
            message = f"nested deeper than {MAX_DEPTH} levels (a recursive alias?)"
            raise _fail(doc.file, line, column, message)
        doc.marks[path] = (line, column)
        if isinstance(node, (yaml.MappingNode, yaml.SequenceNode)) and (
            node.tag not in _COLLECTION_TAGS
        ):
            raise _fail(doc.file, line, column, f"YAML tag {_short(node.tag)} is not allowed "
                        "in a manifest (plain strings, numbers, booleans, lists and mappings only)")  # fmt: skip
        if isinstance(node, yaml.MappingNode):
            out: dict[str, Any] = {}
            for key_node, value_node in node.value:
                key = _convert_scalar_key(key_node, doc)
                key_mark = (key_node.start_mark.line + 1, key_node.start_mark.column + 1)
                if key in out:
                    raise _fail(doc.file, key_mark[0], key_mark[1], f"duplicate key {key!r}")
                value_path = (*path, key)
                doc.key_marks[value_path] = key_mark
                out[key] = self.convert(value_node, value_path)
            return out
        if isinstance(node, yaml.SequenceNode):
            return [self.convert(item, (*path, i)) for i, item in enumerate(node.value)]
        return self.scalar(node, line, column)

    def scalar(self, node: yaml.Node, line: int, column: int) -> Any:
        import yaml

        if node.tag in _TEXT_TAGS:
            return str(node.value)
        if node.tag not in _PLAIN_TAGS:
            raise _fail(self.doc.file, line, column, f"YAML tag {_short(node.tag)} is not "
                        "allowed in a manifest (plain strings, numbers, booleans, lists and "
                        "mappings only)")  # fmt: skip
        try:
            return self.constructor.construct_object(node, deep=True)
        except (yaml.YAMLError, ValueError, OverflowError) as exc:
            raise _fail(self.doc.file, line, column, f"unreadable value: {exc}") from None
        except (KeyError, TypeError):
            # `!!bool maybe`: the constructor looks the text up in its table of booleans.
            text = str(node.value)
            shown = repr(text[:60]) + ("..." if len(text) > 60 else "")
            raise _fail(
                self.doc.file, line, column, f"unreadable value: {_short(node.tag)} {shown}"
            ) from None


def _short(tag: str) -> str:
    return "!!" + tag.removeprefix("tag:yaml.org,2002:") if tag.startswith("tag:yaml") else tag


def _convert_scalar_key(node: yaml.Node, doc: Document) -> str:
    import yaml

    if not isinstance(node, yaml.ScalarNode):
        line, column = node.start_mark.line + 1, node.start_mark.column + 1
        raise _fail(doc.file, line, column, "mapping keys must be plain strings")
    return str(node.value)
