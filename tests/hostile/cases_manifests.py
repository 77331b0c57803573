"""Hostile manifests: the real manifest with schema-shaped values replaced by hostile ones,
and hostile YAML (tags, recursive aliases, deep nesting, control characters in paths)."""

from __future__ import annotations

import os
import random
from collections.abc import Callable, Iterator
from typing import Any

import yaml

from tests.hostile.material import EXAMPLE_MANIFEST, LIBRARIES, member, small_wheel
from tests.hostile.runner import Case, Workspace

PLATFORM, LIB = "manylinux_2_28_x86_64", LIBRARIES["elf"][1]


def _values(ws: Workspace) -> list[Any]:
    escape = ws.escape("manifest")
    return [
        None,
        0,
        -1,
        2**70,
        1.5,
        float("nan"),
        True,
        "",
        [],
        {},
        [[[]]],
        {"a": {"b": {}}},
        "x\n/" + escape,
        "x\0y",
        "x\r\n" + escape,
        escape,
        "/" + escape.lstrip("./"),
        "\x1b]0;pwned\x07\x1b[31m",
        "\u2028",
        "é" * 3000,
        "a" * 100_000,
        ["x\n/" + escape],
        [escape],
        {"dir": "x\n/" + escape},
        "$ORIGIN/../../..",
        "..",
        ".",
        "a/./b//c/",
    ]


def _paths(node: Any, prefix: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    yield prefix
    if isinstance(node, dict):
        for key, value in node.items():
            yield from _paths(value, (*prefix, key))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from _paths(value, (*prefix, index))


def _replace(doc: Any, path: tuple[Any, ...], value: Any) -> Any:
    if not path:
        return value
    parent = doc
    for step in path[:-1]:
        parent = parent[step]
    parent[path[-1]] = value
    return doc


def _schema_shaped(ws: Workspace, rng: random.Random) -> str:
    doc = yaml.safe_load(EXAMPLE_MANIFEST.read_text())
    # Path fields first: they are where a value becomes a file system operation.
    path_fields = [
        ("cmake", "installed_config_dirs", 0),
        ("cmake", "required_dirs", 0),
        ("cmake", "package_root"),
        ("cmake", "config_source"),
        ("cmake", "package"),
        ("libraries", 0, "platforms", "linux", "dir"),
        ("libraries", 0, "name"),
    ]
    for _ in range(rng.randint(1, 4)):
        paths = list(_paths(doc))
        where = rng.choice(path_fields) if rng.random() < 0.5 else rng.choice(paths)
        try:
            doc = _replace(doc, where, rng.choice(_values(ws)))
        except (KeyError, IndexError, TypeError):
            continue
    return yaml.safe_dump(doc, allow_unicode=True, width=10**9)


_HOSTILE_YAML: tuple[str, ...] = (
    "version: !!python/name:os.system\n",
    "version: !!python/object/apply:os.system ['touch /tmp/pwned']\n",
    "version: 1\npackage: {name: !!timestamp 2001-13-45}\n",
    "version: 1\npackage: {name: !!bool maybe}\n",
    "version: !!int 0x\npackage: {name: !!float .}\n",
    "version: 1\npackage: !custom {name: x}\n",
    "version: 1\npackage: {name: !!binary '%%%'}\n",
    "version: 1\npackage: &a {name: x, more: *a}\n",
    "version: 1\nlibraries: &a [*a]\n",
    "a: &a ['lol','lol','lol','lol','lol','lol','lol','lol','lol']\n"
    + "".join(
        f"{c}: &{c} [*{p},*{p},*{p},*{p},*{p},*{p},*{p},*{p},*{p}]\n"
        for p, c in zip("abcdefgh", "bcdefghi", strict=True)
    ),
    "version: 1\npackage: " + "[" * 1000 + "]" * 1000 + "\n",
    "version: 1\npackage: " + "{a: " * 1000 + "1" + "}" * 1000 + "\n",
    "version: 1\n" + "".join("  " * i + f"k{i}:\n" for i in range(950)),
    "version: 1\npackage: {name: x, name: y}\n",
    "\ufeffversion: 1\n",
    'version: 1\npackage: {name: "\\0\\x1b[2J"}\n',
    "--- 1\n--- 2\n",
    "[1, 2\n",
    "version: 1\n\tpackage: x\n",
    "~\n",
    "version: 1\nunknown" + "x" * 200_000 + ": 1\n",
    "version: 1\nlibraries: [" + ", ".join(f"{{name: l{i}}}" for i in range(20_000)) + "]\n",
)


def _raw(ws: Workspace, rng: random.Random) -> str | bytes:
    choice = rng.randrange(len(_HOSTILE_YAML) + 2)
    if choice == len(_HOSTILE_YAML):
        return bytes(rng.randrange(256) for _ in range(rng.choice((1, 100, 10_000))))
    if choice == len(_HOSTILE_YAML) + 1:
        return (
            "version: 1\npackage: {name: '"
            + "\udcff".encode("utf-8", "surrogatepass").decode("latin-1")
            + "'}\n"
        )
    return _HOSTILE_YAML[choice]


def _special(ws: Workspace, rng: random.Random, path: str) -> None:
    kind = rng.choice(("fifo", "zero", "dir", "environ", "passwd"))
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "zero":
        os.symlink("/dev/zero", path)
    elif kind == "dir":
        os.mkdir(path)
    elif kind == "environ":
        os.symlink("/proc/self/environ", path)
    else:
        os.symlink("/etc/passwd", path)


Builder = Callable[[Workspace, random.Random], str | bytes | None]


def cases(count: int, seed: int) -> Iterator[Case]:
    kinds: tuple[Builder, ...] = (_schema_shaped, _raw, _schema_shaped, lambda ws, rng: None)
    for i in range(count):
        kind = kinds[i % len(kinds)]
        case_seed = seed * 100_000 + i

        def build(ws: Workspace, kind: Builder = kind, s: int = case_seed) -> list[str]:
            rng = random.Random(s)
            path = ws.inputs / "shiplint.yaml"
            text = kind(ws, rng)
            if text is None:
                _special(ws, rng, str(path))
            elif isinstance(text, bytes):
                path.write_bytes(text)
            else:
                path.write_bytes(text.encode("utf-8", "surrogatepass"))
            if rng.random() < 0.2:
                return ["validate-manifest", str(path)]
            wheel = small_wheel(ws.inputs, PLATFORM, [(LIB, member(PLATFORM, LIB))])
            return ["check", "--no-sources", "--manifest", str(path), str(wheel)]

        name = getattr(kind, "__name__", "special").strip("_").replace("<lambda>", "special")
        yield Case(
            "manifests",
            f"{name}-{i}",
            case_seed,
            build,
            env={"SHIPLINT_SECRET": "s3cr3t-manifest"},
            forbidden=("s3cr3t-manifest", "root:x:0:0", "\x1b"),
        )
